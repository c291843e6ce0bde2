-- goslap's test of a lost connection: the event kills its own connection once;
-- with --mysql-ignore-errors=2013 the engine reconnects and the restarted
-- event's before_restart_event prepares again on the new connection.
function thread_init()
   con = sysbench.sql.driver():connect()
   stmt = con:prepare("SELECT 1")
   killed, restarts = false, 0
end
function event()
   if not killed then
      killed = true
      con:query("KILL CONNECTION_ID()")
   end
   stmt:execute()
end
function sysbench.hooks.before_restart_event(err)
   restarts = restarts + 1
   print("restart after errno " .. err.sql_errno)
   stmt:close()
   stmt = con:prepare("SELECT 1")
end
function thread_done()
   print("restarts " .. restarts)
end
