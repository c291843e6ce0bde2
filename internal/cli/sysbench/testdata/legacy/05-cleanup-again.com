# 0.5 --test=oltp.lua cleanup
exit 1
Com_drop_table 1
