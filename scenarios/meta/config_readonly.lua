-- The existing .git/config of a write root is read-only: it cannot be
-- appended to (a core.hooksPath or core.fsmonitor would run code on the
-- next git command), truncated, removed or renamed away.  The rest of the
-- workspace is writable (positive control).  The oracle is the host.
return scenario {
  id = "meta.config_readonly",
  clauses = { "META-1" },
  claim = "an existing .git/config under a write root cannot be changed, while the workspace can",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local cfg = t.ws .. "/.git/config"
    local before = assert(sp.read(cfg))
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "append", cfg, "[core]\n\tfsmonitor = /tmp/pwn\n", as = "append" },
        { "write", cfg, "[core]\n\thooksPath = /tmp/pwn\n", as = "write" },
        { "rename", cfg, t.ws .. "/.git/config.away", as = "rename" },
        { "unlink", cfg, as = "unlink" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, op in ipairs { "append", "write", "rename", "unlink" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.op .. "=" .. (q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(cfg) ~= before or sp.exists(t.ws .. "/.git/config.away") then return "written" end
    return "denied"
  end,
}
