-- a sysbench 0.5 script (refused: goslap interprets the 1.0 API only)
function event(thread_id)
   db_query("SELECT 1")
end
