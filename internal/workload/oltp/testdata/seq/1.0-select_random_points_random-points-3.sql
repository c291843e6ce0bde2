SELECT id, k, c, pad FROM sbtest1 WHERE k IN (109, 126, 126)
-- end of event
SELECT id, k, c, pad FROM sbtest1 WHERE k IN (126, 127, 126)
-- end of event
