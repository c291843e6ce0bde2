SELECT c from sbtest where id=502
-- end of event
SELECT c from sbtest where id=504
-- end of event
