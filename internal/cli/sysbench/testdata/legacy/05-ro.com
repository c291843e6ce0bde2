# 0.5 --test=oltp.lua --oltp-read-only=on --max-requests=1000 run
exit 0
Com_begin 1000
Com_commit 1000
Com_select 14000
