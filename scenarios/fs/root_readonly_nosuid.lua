-- The host's / is mounted read-only and nosuid in the sandbox: the mount
-- table the command sees (/proc/self/mountinfo) says so for "/".  The
-- workspace mount is writable (positive control, on the host).
-- (Linux: a mount-namespace property; on macOS and Windows the read-only
-- host is checked by its effect, fs.outside_system.)
return scenario {
  id = "fs.root_readonly_nosuid",
  clauses = { "FS-1" },
  claim = "the sandbox's / is a read-only, nosuid mount",
  expect = { linux = { "ro_nosuid" },
             macos = { unsupported = "a mount-namespace property (mountinfo); on macOS the read-only host is checked by its effect, fs.outside_system" },
             windows = { "not_applicable" } },
  impact = { suid = "hardening", writable = "hardening" },
  control = "fs.workspace_writable",
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local r = t:ran(t:sandbox {
      command = { "sh", "-c",
        'awk \'$5 == "/" { print "ROOTOPTS:" $6 }\' /proc/self/mountinfo; exec "$0" write "$1" ok',
        t.paths.probe, t.ws .. "/control" },
    })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    -- several mounts may be stacked on "/": the one the command sees is the last
    local opts
    for o in r.stdout:gmatch("ROOTOPTS:(%S+)") do opts = o end
    t:note("note", "options of / : " .. tostring(opts))
    if not opts then return "control_failed" end
    local set = {}
    for o in opts:gmatch("[^,]+") do set[o] = true end
    if not set.ro then return "writable" end
    if not set.nosuid then return "suid" end
    return "ro_nosuid"
  end,
}
