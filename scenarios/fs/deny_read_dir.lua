-- A deny_read directory is covered by an empty mode-000 directory: neither
-- the names of its entries nor their content reach the command's output
-- (ls, cat, the probe's read; before and after trying to chmod the cover
-- open), while the rest of the workspace reads fine
-- (positive control).  The directory is untouched on the host.  On
-- Windows, which has no POSIX shell, ls, cat or chmod, by the probe's
-- read, stat and list alone.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.deny_read_dir",
  clauses = { "FS-3" },
  claim = "the entries and content of a deny_read directory never appear in the command's output",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  impact = { exposed = "escape", host_changed = "escape", names_exposed = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local u = string.format("%d-%d", sp.getpid(), t.seed)
    local dir = t.ws .. "/.ssh"
    local name = "id_key_" .. u
    local token = "PRIVATE-" .. u .. "-d"
    assert(sp.mkdir(dir, 448))
    assert(sp.mkdir(dir .. "/sub"))
    assert(sp.write(dir .. "/" .. name, token .. "\n", 384))
    assert(sp.write(dir .. "/sub/deep", token .. "-deep\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.deny_read = array { dir }
    local spec = {
      profile = p,
      command = { "sh", "-c",
        'ls -laR "$1" 2>&1; chmod 755 "$1" 2>&1; ls -laR "$1" 2>&1; cat "$1"/* "$1"/sub/deep 2>&1; exec "$0" read "$2" -- read "$1/$3" -- read "$1/sub/deep" -- stat "$1"',
        t.paths.probe, dir, t.ws .. "/README", name },
      op_names = { "control", "secret", "deep", "stat" },
    }
    if t.os == "windows" or t.os == "wine" then
      spec = { profile = p, probe = { { "read", t.ws .. "/README", as = "control" },
        { "read", dir .. "/" .. name, as = "secret" }, { "read", dir .. "/sub/deep", as = "deep" },
        { "stat", dir, as = "stat" }, { "list", dir }, { "list", dir .. "/sub" } } }
    end
    local r = t:ran(t:sandbox(spec))
    local ctl = r.op.control
    if not (ctl and ctl.ok and ctl.data == "workspace\n") then return "control_failed" end
    local errs = {}
    for _, op in ipairs { "secret", "deep" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.ok and "ok" or tostring(q.errno)
    end
    local st = r.op.stat
    t:note("note", string.format("read errnos %s; stat type=%s mode=%s",
      table.concat(errs, " "), st and tostring(st.type) or "-", st and tostring(st.mode) or "-"))
    if sp.read(dir .. "/" .. name) ~= token .. "\n" then return "host_changed" end
    local out = (r.stdout or "") .. (r.stderr or "")
    if out:find(token, 1, true) then return "exposed" end
    if out:find(name, 1, true) then return "names_exposed" end
    return "hidden"
  end,
}
