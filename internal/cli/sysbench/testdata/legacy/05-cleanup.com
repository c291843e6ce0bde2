# 0.5 --test=oltp.lua cleanup
exit 0
Com_drop_table 1
