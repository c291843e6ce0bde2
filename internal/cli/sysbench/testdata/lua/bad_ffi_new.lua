-- LuaJIT's ffi.new has no counterpart in goslap
ffi = require("ffi")
local buf = ffi.new("char[?]", 16)
function event()
end
