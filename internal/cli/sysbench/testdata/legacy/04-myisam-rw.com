# 0.4 --test=oltp --mysql-table-engine=myisam --max-requests=1000 run
exit 0
Com_delete 1000
Com_insert 1000
Com_lock_tables 1000
Com_select 14000
Com_show_table_status 1
Com_stmt_close 11
Com_stmt_execute 21000
Com_stmt_prepare 11
Com_unlock_tables 1000
Com_update 3000
