SELECT pad from sbtest where id=502
-- end of event
SELECT pad from sbtest where id=504
-- end of event
