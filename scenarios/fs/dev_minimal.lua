-- /dev is minimal: only the harmless nodes (null zero full random urandom
-- tty), a private devpts (pts, ptmx), a private shm and the fd/std* links.
-- No disk, memory, kernel log or other host device is reachable.  The
-- positive control is in the same run: /dev/null takes a write.
-- (Linux: a private /dev needs a mount namespace; Seatbelt cannot replace
-- devfs and Windows has no /dev.)
local ALLOWED = {
  null = true, zero = true, full = true, random = true, urandom = true, tty = true,
  pts = true, ptmx = true, shm = true, fd = true, stdin = true, stdout = true, stderr = true,
}

return scenario {
  id = "fs.dev_minimal",
  clauses = { "FS-5" },
  claim = "/dev holds only the minimal nodes and links, and no host device",
  expect = { linux = { "minimal" },
             macos = { unsupported = "Seatbelt cannot replace devfs: the host's /dev stays, reached only as the profile allows" },
             windows = { "not_applicable" } },
  impact = { host_devices = "exposure" },
  control = "proc.exit_code_exact",
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local r = t:ran(t:sandbox {
      command = { "sh", "-c", 'printf "DEV:"; ls -A /dev | tr "\\n" " "; echo; exec "$0" write /dev/null x',
                  t.paths.probe },
      op_names = { "null" },
    })
    local ctl = r.op.null
    if not (ctl and ctl.ok) then return "control_failed" end
    local line = r.stdout:match("DEV:([^\n]*)")
    if not line then return "control_failed" end
    local extra, n = {}, 0
    for name in line:gmatch("%S+") do
      n = n + 1
      if not ALLOWED[name] then extra[#extra + 1] = name end
    end
    t:note("note", string.format("%d entries in /dev; not allowed: %s", n,
      #extra > 0 and table.concat(extra, " ", 1, math.min(#extra, 40)) or "none"))
    if n == 0 then return "control_failed" end
    return #extra == 0 and "minimal" or "host_devices"
  end,
}
