# 0.4 --test=oltp --mysql-table-engine=myisam prepare
exit 0
Com_create_index 1
Com_create_table 1
Com_insert 1
