UPDATE sbtest1 SET k=k+1 WHERE id=439
UPDATE sbtest1 SET k=k+1 WHERE id=503
-- end of event
UPDATE sbtest1 SET k=k+1 WHERE id=504
UPDATE sbtest1 SET k=k+1 WHERE id=504
-- end of event
