-- A sibling module the API test script requires.
local M = {}

function M.table_name()
   return "lua_api"
end

return M
