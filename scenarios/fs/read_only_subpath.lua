-- A read_only_subpath stays read-only although it lies inside a write
-- root: its file cannot be overwritten, appended to, removed or renamed
-- away, and nothing can be created in it; the rest of the root stays
-- writable (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.read_only_subpath",
  clauses = { "FS-2" },
  claim = "a read_only_subpath inside a write root cannot be changed, while the rest of the root can",
  expect = { linux = { "read_only" }, macos = { "read_only" }, windows = { "read_only" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ro = t.ws .. "/vendor"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/lib.txt", "original\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { ro } } }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok", as = "control" },  -- positive control
        { "write", ro .. "/lib.txt", "pwned" },
        { "append", ro .. "/lib.txt", "pwned" },
        { "write", ro .. "/new.txt", "x" },
        { "mkdir", ro .. "/newdir" },
        { "rename", ro .. "/lib.txt", t.ws .. "/moved.txt" },
        { "unlink", ro .. "/lib.txt" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(ro .. "/lib.txt") ~= "original\n" or sp.exists(ro .. "/new.txt") or
       sp.exists(ro .. "/newdir") or sp.exists(t.ws .. "/moved.txt") then
      return "written"
    end
    return "read_only"
  end,
}
