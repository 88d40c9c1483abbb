-- A request that states no limit gets the documented defaults where the
-- host can enforce them, and enforcement.limits says exactly what was
-- applied.  Each reported limit is checked on the host while the probe
-- sleeps (a hold on its first sleep), in the kernel's own view of the
-- probe's process: /proc/PID/limits for open_files (and pids through
-- RLIMIT_NPROC: one more, the sandbox's pid 1), /proc/PID/mountinfo for
-- the tmpfs sizes, the pids.max of the cgroup /proc/PID/cgroup names for
-- pids through a cgroup.  A limit reported null must be one without a
-- default (memory, CPU) or one the host cannot enforce.
local DEFAULTS = { pids = 4096, tmp_bytes = 1024 * 1024 * 1024, shm_bytes = 256 * 1024 * 1024,
                   open_files = 8192 }

-- The size of the tmpfs mounted last (on top) at point, in KiB.
local function tmpfs_kib(mountinfo, point)
  local kib
  for line in (mountinfo or ""):gmatch("[^\n]+") do
    local mp, opts = line:match("^%S+ %S+ %S+ %S+ (%S+) .* %- tmpfs %S+ (%S+)$")
    if mp == point then kib = tonumber(opts:match("size=(%d+)k")) end
  end
  return kib
end

-- The pids.max of the v1 or v2 cgroup that /proc/PID/cgroup names.
local function cgroup_pids_max(pid)
  for line in (sp.read("/proc/" .. pid .. "/cgroup") or ""):gmatch("[^\n]+") do
    local ctl, path = line:match("^%d+:([^:]*):(.*)$")
    local dir = ctl == "pids" and "/sys/fs/cgroup/pids" .. path or
                (ctl == "" and "/sys/fs/cgroup" .. path) or nil
    local v = dir and sp.read(dir .. "/pids.max")
    if v then return tonumber(v:match("%d+")), path end
  end
end

return scenario {
  id = "lim.defaults_reported",
  clauses = { "LIM-1", "LIM-2", "OUT-4" },
  claim = "without stated limits the documented defaults apply where enforceable, and enforcement.limits reports exactly them",
  expect = { linux = { "reported" },
             macos = { unsupported = "the oracle reads /proc/PID/limits, mountinfo and cgroup pids.max during a seccomp hold: Linux only" },
             windows = { unsupported = "the oracle reads /proc during a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { ["not_applied:*"] = "hardening", open_files_not_applied = "reporting", pids_not_applied = "reporting", tmpfs_not_applied = "reporting", not_reported = "reporting", undocumented_default = "reporting", ["wrong_value:*"] = "reporting" },
  run = function(t)
    local seen = {}
    local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1, comm = "sandproof-probe",
                       sandbox = { probe = { { "sleep", 50 } } },
                       action = function(_, _, pid)
                         seen.limits = sp.read("/proc/" .. pid .. "/limits")
                         seen.mounts = sp.read("/proc/" .. pid .. "/mountinfo")
                         seen.pids_max, seen.cgroup = cgroup_pids_max(pid)
                       end }
    t:ran(r)
    local lim = r.outcome.enforcement and r.outcome.enforcement.limits
    if type(lim) ~= "table" then return "not_reported" end
    t:note("note", "enforcement.limits " .. sp.json_encode(lim))
    local files = tonumber((seen.limits or ""):match("Max open files%s+(%d+)"))
    local procs = tonumber((seen.limits or ""):match("Max processes%s+(%d+)"))
    t:note("census", string.format("host: open files %s, processes %s, /tmp %s KiB, /dev/shm %s KiB, cgroup %s pids.max %s",
      tostring(files), tostring(procs), tostring(tmpfs_kib(seen.mounts, "/tmp")),
      tostring(tmpfs_kib(seen.mounts, "/dev/shm")), tostring(seen.cgroup), tostring(seen.pids_max)))
    if lim.memory_bytes ~= sp.null or lim.cpu_seconds ~= sp.null then return "undocumented_default" end
    for k, v in pairs(DEFAULTS) do
      local a = lim[k]
      if a == sp.null then return "not_applied:" .. k end
      -- rlimits above the runner's own hard limit are lowered to it
      if a.value ~= v and not (a.via == "rlimit" and a.value < v) then return "wrong_value:" .. k end
    end
    if files ~= lim.open_files.value then return "open_files_not_applied" end
    if lim.tmp_bytes.value // 1024 ~= tmpfs_kib(seen.mounts, "/tmp") or
       lim.shm_bytes.value // 1024 ~= tmpfs_kib(seen.mounts, "/dev/shm") then return "tmpfs_not_applied" end
    if lim.pids.via == "rlimit" and procs ~= lim.pids.value + 1 then return "pids_not_applied" end
    if lim.pids.via ~= "rlimit" and seen.pids_max ~= lim.pids.value + 1 then return "pids_not_applied" end
    return "reported"
  end,
}
