CREATE TABLE t1 (id int, name varchar(64));
INSERT INTO t1 VALUES (1, 'one');

INSERT INTO t1 VALUES (2, 'two');
