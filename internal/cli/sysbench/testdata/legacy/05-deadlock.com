# 0.5 --test=oltp.lua --oltp-table-size=10 --num-threads=8 --max-requests=400 --rand-type=uniform run
exit 0
Com_begin 421
Com_commit 400
Com_delete 407
Com_insert 400
Com_select 5894
Com_update 842
