UPDATE sbtest1 SET k=k+1 WHERE id=502
-- end of event
UPDATE sbtest1 SET k=k+1 WHERE id=504
-- end of event
