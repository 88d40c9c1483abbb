-- A read-only path inside a write root keeps its place: renaming one of its
-- parent directories away (the read-only object travels with it) and
-- creating a new directory and file under the old name must not put new
-- content at the policy path on the host.  Found by `sandproof explore`
-- against ref: the bind held only the path itself.  Now every directory
-- between the write root and a read_only_subpaths or deny_write path is
-- pinned (FS-2), so each rename fails.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.ro_parent_renamed",
  clauses = { "FS-2" },
  claim = "renaming a parent of a read-only path inside a write root cannot replace what the path holds",
  expect = { linux = { "kept" }, macos = { "kept" }, windows = { "kept" } },
  impact = { replaced = "escape", moved = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local d, e = t.ws .. "/d", t.ws .. "/e"
    assert(sp.mkdir(d)); assert(sp.mkdir(e)); assert(sp.mkdir(e .. "/sub"))
    assert(sp.write(d .. "/f", "original\n"))
    assert(sp.write(e .. "/sub/f", "original\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { e .. "/sub/f" } } }
    p.filesystem.deny_write = array { d .. "/f" }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok", as = "control" },  -- positive control
        { "rename", d, t.ws .. "/d-away" },
        { "mkdir", d },
        { "write", d .. "/f", "planted\n" },
        { "rename", e .. "/sub", e .. "/sub-away" },
        { "rename", e, t.ws .. "/e-away" },
        { "mkdir", e },
        { "mkdir", e .. "/sub" },
        { "write", e .. "/sub/f", "planted\n" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(d .. "/f") ~= "original\n" or sp.read(e .. "/sub/f") ~= "original\n" then
      return "replaced"
    end
    if sp.exists(t.ws .. "/d-away") or sp.exists(t.ws .. "/e-away") or sp.exists(e .. "/sub-away") then
      return "moved"
    end
    return "kept"
  end,
}
