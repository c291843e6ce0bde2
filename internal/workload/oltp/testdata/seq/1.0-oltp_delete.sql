DELETE FROM sbtest1 WHERE id=439
-- end of event
DELETE FROM sbtest1 WHERE id=503
-- end of event
