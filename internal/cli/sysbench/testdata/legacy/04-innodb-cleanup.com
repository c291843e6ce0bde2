# 0.4 --test=oltp cleanup
exit 0
Com_drop_table 1
