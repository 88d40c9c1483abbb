-- deny_write paths are read-only even inside a write root: a file (its
-- content) and a directory (its entries), while the root around them stays
-- writable (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.deny_write_in_root",
  clauses = { "FS-2" },
  claim = "a deny_write file and directory inside a write root cannot be changed",
  expect = { linux = { "read_only" }, macos = { "read_only" }, windows = { "read_only" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local file, dir = t.ws .. "/.env", t.ws .. "/secrets"
    assert(sp.write(file, "TOKEN=original\n"))
    assert(sp.mkdir(dir))
    assert(sp.write(dir .. "/key", "original\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.deny_write = array { file, dir }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok", as = "control" },  -- positive control
        { "write", file, "TOKEN=pwned\n" },
        { "append", file, "pwned" },
        { "unlink", file },
        { "write", dir .. "/key", "pwned" },
        { "write", dir .. "/new", "x" },
        { "unlink", dir .. "/key" },
        { "rename", dir, t.ws .. "/moved" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(file) ~= "TOKEN=original\n" or sp.read(dir .. "/key") ~= "original\n" or
       sp.exists(dir .. "/new") or sp.exists(t.ws .. "/moved") then
      return "written"
    end
    return "read_only"
  end,
}
