-- a script that does not parse: line 4 lacks its 'then'
function event()
   local x = 1
   if x == 1
      x = 2
   end
end
