-- an FFI use goslap cannot honour
ffi = require("ffi")
ffi.cdef[[
int gettimeofday(void *tv, void *tz);
]]
function event()
   ffi.C.gettimeofday(nil, nil)
end
