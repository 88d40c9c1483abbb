-- A write root does not make its neighbours writable: a sibling directory
-- of the workspace (t.outside, holding `victim`) is out of reach.  On Linux
-- the sibling lies under the host's /tmp, which the sandbox never sees
-- (FS-4), so the probe's errno is ENOENT rather than EROFS; the oracle is
-- the host either way: nothing there may change.
return scenario {
  id = "fs.outside_sibling",
  clauses = { "FS-1" },
  claim = "writes to a sibling directory of the write root (overwrite, create, mkdir) do not land on the host",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local victim, new, dir = t.outside .. "/victim", t.outside .. "/new", t.outside .. "/d"
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/control", "ok" },                -- positive control
        { "write", victim, "pwned", as = "write" },
        { "append", victim, "pwned", as = "append" },
        { "write", new, "x", as = "create" },
        { "mkdir", dir, as = "mkdir" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, op in ipairs { "write", "append", "create", "mkdir" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.ok and "ok" or tostring(q.errno)
    end
    t:note("note", "sibling errnos (write, append, create, mkdir): " .. table.concat(errs, " "))
    if sp.read(victim) ~= "untouched\n" or sp.exists(new) or sp.exists(dir) then
      return "escaped"
    end
    return "confined"
  end,
}
