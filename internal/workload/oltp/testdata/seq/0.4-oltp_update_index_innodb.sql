UPDATE sbtest set k=k+1 where id=502
-- end of event
UPDATE sbtest set k=k+1 where id=504
-- end of event
