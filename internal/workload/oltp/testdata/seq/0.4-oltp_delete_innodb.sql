DELETE from sbtest where id=648
-- end of event
DELETE from sbtest where id=236
-- end of event
