-- calls a function sysbench's API does not have
function event()
   sysbench.rand.no_such_draw(1, 10)
end
