# 0.5 --test=oltp.lua prepare
exit 0
Com_create_index 1
Com_create_table 1
Com_insert 4
