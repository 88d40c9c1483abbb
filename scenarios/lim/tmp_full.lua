-- The private temp file systems are as small as asked: with tmp_bytes and
-- shm_bytes 1 MiB, 256 KiB fits in /tmp and in /dev/shm (positive
-- control), 4 MiB more ends in ENOSPC below the limit.  Host-side oracles:
-- while the probe sleeps (a hold), the kernel's mount table of the probe's
-- process shows /tmp and /dev/shm as tmpfs of size=1024k; after the run
-- nothing it wrote is on the host.  Safety: the files are named after this
-- run; the unconfined control writes them into this scenario's temp
-- directory and the host's /dev/shm, and they are removed afterwards.
local KIB = 1024

-- The size of the tmpfs mounted last (on top) at point, in KiB.
local function size_of(mountinfo, point)
  local size
  for line in (mountinfo or ""):gmatch("[^\n]+") do
    local mp, rest = line:match("^%S+ %S+ %S+ %S+ (%S+) .* %- tmpfs %S+ (%S+)$")
    if mp == point then size = rest:match("size=(%d+)k") end
  end
  return size
end

return scenario {
  id = "lim.tmp_full",
  clauses = { "LIM-4" },
  claim = "tmp_bytes and shm_bytes bound the private /tmp and /dev/shm: writes past them fail with ENOSPC",
  expect = { linux = { "bounded" },
             macos = { unsupported = "checks the private tmpfs sizes (mountinfo during a seccomp hold): Seatbelt mounts nothing" },
             windows = { unsupported = "the oracle reads mountinfo during a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { leaked = "escape", unbounded = "escape", mount_not_bounded = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local tmpf = t.tmp .. "/fill"
    local shmf = string.format("/dev/shm/sandproof-%d-%d-fill", sp.getpid(), t.seed)
    local p = t.profiles.workspace_write()
    p.limits = { tmp_bytes = 1024 * KIB, shm_bytes = 1024 * KIB }
    local info
    local ok, r = pcall(t.hold, t, { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1, comm = "sandproof-probe",
      sandbox = { profile = p, probe = { { "fill", tmpf .. "-a", 256 * KIB }, { "fill", tmpf .. "-b", 4096 * KIB },
                                         { "fill", shmf .. "-a", 256 * KIB }, { "fill", shmf .. "-b", 4096 * KIB },
                                         { "sleep", 50 } } },
      action = function(_, _, pid) info = sp.read("/proc/" .. pid .. "/mountinfo") end })
    local on_host = sp.exists(tmpf .. "-a") or sp.exists(shmf .. "-a")
    for _, f in ipairs { tmpf .. "-a", tmpf .. "-b", shmf .. "-a", shmf .. "-b" } do sp.unlink(f) end
    if not ok then error(r, 0) end
    t:ran(r)
    local q = r.probe
    local function d(i) return q[i] and string.format("%s %s", q[i].ok and "ok" or tostring(q[i].errno), tostring(q[i].written)) or "missing" end
    t:note("note", string.format("/tmp: %s, %s; /dev/shm: %s, %s; mount sizes (KiB) /tmp %s /dev/shm %s; on host %s",
      d(1), d(2), d(3), d(4), tostring(size_of(info, "/tmp")), tostring(size_of(info, "/dev/shm")), tostring(on_host)))
    if not (q[1] and q[1].ok and q[3] and q[3].ok) then return "control_failed" end
    if on_host then return "leaked" end
    for _, i in ipairs { 2, 4 } do
      if q[i].ok or q[i].errno ~= "ENOSPC" or q[i].written > 1024 * KIB then return "unbounded" end
    end
    if size_of(info, "/tmp") ~= "1024" or size_of(info, "/dev/shm") ~= "1024" then return "mount_not_bounded" end
    return "bounded"
  end,
}
