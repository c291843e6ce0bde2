DELETE FROM sbtest1 WHERE id=502
-- end of event
DELETE FROM sbtest1 WHERE id=504
-- end of event
