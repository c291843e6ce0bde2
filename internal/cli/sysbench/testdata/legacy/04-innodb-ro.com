# 0.4 --test=oltp --mysql-table-engine=innodb --oltp-read-only=on --max-requests=1000 run
exit 0
Com_begin 1000
Com_commit 1000
Com_select 14000
Com_show_table_status 1
Com_stmt_close 11
Com_stmt_execute 16000
Com_stmt_prepare 11
