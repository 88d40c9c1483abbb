-- A read-only path beneath a protected name's ancestor stays read-only.
-- META-2 pins .git (the directory between the write root and .git/hooks)
-- by binding it onto itself; that bind, mounted after the read-only bind of
-- a deny_write path inside .git, covered it and made it writable again.
-- Now writable mounts go first and read-only binds after them (FS-2).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.ro_under_protected",
  clauses = { "FS-2", "META-2" },
  claim = "deny_write and read_only_subpaths paths inside .git stay read-only under the pin of .git",
  expect = { linux = { "read_only" }, macos = { "read_only" }, windows = { "read_only" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local g = t.ws .. "/.git"
    assert(sp.exists(g .. "/hooks"), "the workspace is a repository with .git/hooks")
    assert(sp.mkdir(g .. "/info") or sp.exists(g .. "/info"))
    assert(sp.write(g .. "/info/exclude", "original\n"))
    assert(sp.write(g .. "/description", "original\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { g .. "/description" } } }
    p.filesystem.deny_write = array { g .. "/info" }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok", as = "control" },  -- positive control
        { "write", g .. "/info/exclude", "pwned\n" },
        { "write", g .. "/info/new", "pwned\n" },
        { "write", g .. "/description", "pwned\n" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(g .. "/info/exclude") ~= "original\n" or sp.exists(g .. "/info/new") or
       sp.read(g .. "/description") ~= "original\n" then
      return "written"
    end
    return "read_only"
  end,
}
