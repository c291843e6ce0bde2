# 0.5 --test=oltp.lua --max-requests=1000 run
exit 0
Com_begin 1000
Com_commit 1000
Com_delete 1000
Com_insert 1000
Com_select 14000
Com_update 2000
