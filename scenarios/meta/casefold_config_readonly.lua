-- meta.config_readonly on a case-insensitive workspace
-- (t:casefold_workspace): the existing .git/config is read-only under
-- every spelling.  Appending to .git/CONFIG, rewriting .GIT/config,
-- renaming .Git/Config away and unlinking .GIT/CONFIG must all fail, while
-- the workspace is writable (positive control).  The oracle is the host.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_config_readonly",
  clauses = { "META-1", "META-6" },
  claim = "on a case-insensitive workspace, .git/config cannot be changed under another spelling (.GIT/CONFIG), while the workspace can",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { volume_lost = "fidelity", written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local cfg = t.ws .. "/.git/config"
    local before = assert(sp.read(cfg))
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "append", t.ws .. "/.git/CONFIG", "[core]\n\tfsmonitor = /tmp/pwn\n", as = "append" },
        { "write", t.ws .. "/.GIT/config", "[core]\n\thooksPath = /tmp/pwn\n", as = "write" },
        { "rename", t.ws .. "/.Git/Config", t.ws .. "/.git/config.away", as = "rename" },
        { "unlink", t.ws .. "/.GIT/CONFIG", as = "unlink" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return lib.casefold_control(t) end
    local errs = {}
    for _, op in ipairs { "append", "write", "rename", "unlink" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.op .. "=" .. (q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(cfg) ~= before or #lib.case_spellings(t.ws .. "/.git", "config.away") > 0 then
      return "written"
    end
    return "denied"
  end,
}
