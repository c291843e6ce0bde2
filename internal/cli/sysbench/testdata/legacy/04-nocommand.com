# 0.4 --test=oltp
exit 1
