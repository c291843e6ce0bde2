SELECT c FROM sbtest1 WHERE id=502
-- end of event
SELECT c FROM sbtest1 WHERE id=504
-- end of event
