-- A deny_read file is covered by an empty mode-000 object: its content
-- never reaches the command's output, whether read by the probe or by cat
-- (before and after trying to chmod the cover readable),
-- while a neighbour in the same directory reads fine (positive control).
-- The file itself is untouched on the host.  On Windows, which has no
-- POSIX shell, cat or chmod, by the probe's read and stat alone.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.deny_read_file",
  clauses = { "FS-3" },
  claim = "the content of a deny_read file never appears in the command's output",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  impact = { exposed = "escape", host_changed = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local token = string.format("SECRET-%d-%d-f", sp.getpid(), t.seed)
    local secret = t.ws .. "/credentials"
    assert(sp.write(secret, token .. "\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.deny_read = array { secret }
    local spec = {
      profile = p,
      command = { "sh", "-c", 'cat "$1" 2>&1; chmod 644 "$1" 2>&1; cat "$1" 2>&1; exec "$0" read "$2" -- read "$1" -- stat "$1"',
                  t.paths.probe, secret, t.ws .. "/README" },
      op_names = { "control", "secret", "stat" },
    }
    if t.os == "windows" or t.os == "wine" then
      spec = { profile = p, probe = { { "read", t.ws .. "/README", as = "control" }, { "read", secret, as = "secret" },
                                      { "stat", secret, as = "stat" } } }
    end
    local r = t:ran(t:sandbox(spec))
    local ctl, rd, st = r.op.control, r.op.secret, r.op.stat
    if not (ctl and ctl.ok and ctl.data == "workspace\n") then return "control_failed" end
    t:note("note", string.format("read errno=%s; stat mode=%s size=%s",
      rd and (rd.ok and "ok" or tostring(rd.errno)) or "missing",
      st and tostring(st.mode) or "-", st and tostring(st.size) or "-"))
    if sp.read(secret) ~= token .. "\n" then return "host_changed" end
    local out = (r.stdout or "") .. (r.stderr or "")
    if out:find(token, 1, true) then return "exposed" end
    return "hidden"
  end,
}
