# 0.5 --test=oltp.lua
exit 1
