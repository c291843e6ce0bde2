BEGIN
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
UPDATE sbtest set k=k+1 where id=496
UPDATE sbtest set c='717234905-992736507-407797135-808252333-214203485-373012179-752415888-475539532-848115135-682296614' where id=495
UPDATE sbtest set k=k+1 where id=503
DELETE from sbtest where id=503
INSERT INTO sbtest values(503,0,' ','aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy')
COMMIT
-- end of event
BEGIN
SELECT c from sbtest where id=467
SELECT c from sbtest where id=477
SELECT c from sbtest where id=498
SELECT c from sbtest where id=495
SELECT c from sbtest where id=502
SELECT c from sbtest where id=503
SELECT c from sbtest where id=497
SELECT c from sbtest where id=495
SELECT c from sbtest where id=502
SELECT c from sbtest where id=502
SELECT c from sbtest where id between 504 and 603
SELECT SUM(K) from sbtest where id between 495 and 594
SELECT c from sbtest where id between 497 and 596 order by c
SELECT DISTINCT c from sbtest where id between 499 and 599 order by c
UPDATE sbtest set k=k+1 where id=501
UPDATE sbtest set c='870531959-965748933-766833305-912629638-64282714-97390228-960816956-457372510-563727866-20706444' where id=499
UPDATE sbtest set k=k+1 where id=569
DELETE from sbtest where id=569
INSERT INTO sbtest values(569,0,' ','aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy')
COMMIT
-- end of event
