# 0.4 --test=oltp --oltp-table-size=10 --num-threads=8 --max-requests=400 --oltp-dist-type=uniform run
exit 0
Com_begin 418
Com_commit 400
Com_delete 400
Com_insert 400
Com_select 5852
Com_show_table_status 1
Com_stmt_close 88
Com_stmt_execute 8711
Com_stmt_prepare 88
Com_update 1241
