# 0.5 --test=oltp.lua --oltp-table-size=10 prepare
exit 0
Com_create_index 1
Com_create_table 1
Com_insert 1
