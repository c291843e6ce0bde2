# 0.5 --test=oltp.lua --oltp-dist-type=uniform --oltp-dist-iter=3 --oltp-dist-pct=50 --oltp-dist-res=10 --max-requests=100 run
exit 0
Com_begin 100
Com_commit 100
Com_delete 100
Com_insert 100
Com_select 1400
Com_update 200
