-- Without allow_temp, /tmp is an empty read-only tmpfs: a file or a
-- directory cannot be created there (EROFS), and nothing lands in the
-- host's /tmp; the workspace stays writable (positive control).  The mount
-- itself must be read-only (its mountinfo options): the mount layer alone
-- enforces FS-4 (FS-6), whatever Landlock refuses besides.
local lib = require "sandproof.lib"

return scenario {
  id = "fs.tmp_readonly",
  clauses = { "FS-4" },
  claim = "without allow_temp, nothing can be written under /tmp",
  expect = { linux = { "read_only" },
             macos = { unsupported = "checks /tmp's read-only tmpfs (mountinfo): Seatbelt cannot give /tmp a private mount" },
             windows = { "read_only" } },
  impact = { written = "escape", writable_in_sandbox = "fidelity", mount_writable = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    local f, d = t.tmp .. "/written-in-temp", t.tmp .. "/dir-in-temp"
    local p = t.profiles.workspace_write()
    p.filesystem.allow_temp = false
    local r = t:ran(t:sandbox {
      profile = p,
      probe = { { "write", t.ws .. "/control", "ok" }, { "write", f, "x", as = "write" },
                { "mkdir", d, as = "mkdir" }, { "mountinfo", "/tmp", as = "mount" } },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, name in ipairs { "write", "mkdir" } do
      local q = r.op[name]
      errs[#errs + 1] = not q and "missing" or q.ok and "ok" or tostring(q.errno)
    end
    t:note("note", "write, mkdir under /tmp: " .. table.concat(errs, " "))
    if sp.exists(f) or sp.exists(d) then return "written" end
    for _, name in ipairs { "write", "mkdir" } do
      if r.op[name] and r.op[name].ok then return "writable_in_sandbox" end
    end
    local m = r.op.mount
    t:note("note", "/tmp mount: " .. (m and m.ok and (tostring(m.fstype) .. " " .. tostring(m.options)) or "unknown"))
    if not (m and m.ok) then return "control_failed" end
    if not lib.opt_set(m.options).ro then return "mount_writable" end
    return "read_only"
  end,
}
