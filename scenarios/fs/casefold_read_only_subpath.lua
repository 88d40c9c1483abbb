-- fs.read_only_subpath on a case-insensitive workspace
-- (t:casefold_workspace): the read_only_subpath vendor is read-only under
-- every spelling (VENDOR, Vendor/...), and so is what lies below it, while
-- the rest of the root is writable (positive control).  The host is the
-- oracle: the file is unchanged and nothing was created or moved.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.casefold_read_only_subpath",
  clauses = { "FS-2", "META-6" },
  claim = "on a case-insensitive workspace a read_only_subpath cannot be changed under another spelling (VENDOR)",
  expect = { linux = { "read_only" }, macos = { "read_only" }, windows = { "read_only" } },
  impact = { volume_lost = "fidelity", written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local ro = t.ws .. "/vendor"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/lib.txt", "original\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { ro } } }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok", as = "control" },  -- positive control
        { "write", t.ws .. "/VENDOR/lib.txt", "pwned" },
        { "append", t.ws .. "/Vendor/LIB.TXT", "pwned" },
        { "write", t.ws .. "/vENDOR/new.txt", "x" },
        { "rename", t.ws .. "/VENDOR/lib.txt", t.ws .. "/moved.txt" },
        { "rename", t.ws .. "/VENDOR", t.ws .. "/vendor-away" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return lib.casefold_control(t) end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(ro .. "/lib.txt") ~= "original\n" or #lib.case_spellings(ro, "new.txt") > 0 or
       #lib.case_spellings(t.ws, "moved.txt") > 0 or #lib.case_spellings(t.ws, "vendor-away") > 0 then
      return "written"
    end
    return "read_only"
  end,
}
