-- sysbench's legacy kind of script: no sysbench.cmdline.options, so any
-- option is taken, as a string, in sysbench.opt and as a global.
function show()
   print("foo=" .. tostring(foo) .. " opt=" .. tostring(sysbench.opt.foo) .. " sum=" .. (foo + 1))
end

sysbench.cmdline.commands = {show = {show}}

function event()
end
