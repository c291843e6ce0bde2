LOCK TABLES sbtest READ
SELECT c from sbtest where id=502
SELECT c from sbtest where id=504
SELECT c from sbtest where id=504
SELECT c from sbtest where id=499
SELECT c from sbtest where id=504
SELECT c from sbtest where id=500
SELECT c from sbtest where id=503
SELECT c from sbtest where id=498
SELECT c from sbtest where id=500
SELECT c from sbtest where id=499
SELECT c from sbtest where id between 502 and 601
SELECT SUM(K) from sbtest where id between 500 and 599
SELECT c from sbtest where id between 504 and 603 order by c
SELECT DISTINCT c from sbtest where id between 503 and 603 order by c
UNLOCK TABLES
-- end of event
LOCK TABLES sbtest READ
SELECT c from sbtest where id=496
SELECT c from sbtest where id=501
SELECT c from sbtest where id=409
SELECT c from sbtest where id=503
SELECT c from sbtest where id=497
SELECT c from sbtest where id=403
SELECT c from sbtest where id=523
SELECT c from sbtest where id=497
SELECT c from sbtest where id=495
SELECT c from sbtest where id=502
SELECT c from sbtest where id between 502 and 601
SELECT SUM(K) from sbtest where id between 504 and 603
SELECT c from sbtest where id between 495 and 594 order by c
SELECT DISTINCT c from sbtest where id between 497 and 597 order by c
UNLOCK TABLES
-- end of event
