# 0.4 --test=oltp cleanup
exit 1
Com_drop_table 1
