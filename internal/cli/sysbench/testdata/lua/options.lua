-- goslap's test of sysbench.cmdline: declared options with their types and
-- defaults, a custom command, a parallel custom command.
sysbench.cmdline.options = {
   count = {"A number", 3},
   name = {"A string", "plain"},
   flag = {"A boolean", false},
   items = {"A list", {"a", "b"}},
}

function show()
   print(string.format("count=%d name=%s flag=%s items=%s threads=%d tid=%d cmd=%s",
      sysbench.opt.count, sysbench.opt.name, tostring(sysbench.opt.flag),
      table.concat(sysbench.opt.items, "+"), sysbench.opt.threads, sysbench.tid,
      sysbench.cmdline.command))
end

function each()
   print("worker " .. sysbench.tid)
end

sysbench.cmdline.commands = {
   show = {show},
   each = {each, sysbench.cmdline.PARALLEL_COMMAND},
}

function event()
end
