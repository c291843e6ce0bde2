SELECT c FROM sbtest1 WHERE id=439
-- end of event
SELECT c FROM sbtest1 WHERE id=503
-- end of event
