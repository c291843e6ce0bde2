-- goslap's test of RESTART_EVENT: every other event fails once on a
-- duplicate key; with --mysql-ignore-errors=1062 the error is ignored and
-- the event restarted after before_restart_event.
function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("CREATE TABLE lua_restart (id INT PRIMARY KEY)")
   con:query("INSERT INTO lua_restart VALUES (1)")
end

function cleanup()
   sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS lua_restart")
end

function thread_init()
   con = sysbench.sql.driver():connect()
   n, restarts, fail = 0, 0, true
end

function event()
   n = n + 1
   if fail then
      fail = false
      con:query("INSERT INTO lua_restart VALUES (1)")
   end
   fail = true
   con:query("SELECT 1")
end

function sysbench.hooks.before_restart_event(err)
   assert(err.errcode == sysbench.error.RESTART_EVENT)
   assert(err.sql_errno == 1062 and err.sql_state == "23000", tostring(err.sql_errno))
   restarts = restarts + 1
end

function thread_done()
   print("calls " .. n .. " restarts " .. restarts)
end
