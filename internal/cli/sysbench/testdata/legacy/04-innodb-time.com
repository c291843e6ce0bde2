# 0.4 --test=oltp --max-requests=0 --max-time=1 --num-threads=4 run
exit 0
Com_begin 947
Com_commit 947
Com_delete 947
Com_insert 947
Com_select 13258
Com_show_table_status 1
Com_stmt_close 44
Com_stmt_execute 19887
Com_stmt_prepare 44
Com_update 2841
