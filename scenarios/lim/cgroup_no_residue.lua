-- The run's cgroups leave no residue: a runner SIGKILLed in the middle of
-- a run with a pids limit leaves its cgroup behind (it cannot clean up;
-- the positive control: it is there, and its sandbox died with it), and
-- the next run removes it; the next run's own is gone when that run ends.
-- The oracle is the host's cgroup directory (cgroup v1 or v2, beneath the
-- harness's own cgroup, where the runner makes them).  Only cgroups whose
-- runner is gone are counted, so other runs on this host do not matter.
-- The pids bound is checked first: the unconfined control has no cgroup.
local function parent_of(via)
  for line in (sp.read("/proc/self/cgroup") or ""):gmatch("[^\n]+") do
    local ctl, path = line:match("^%d+:([^:]*):(.*)$")
    if path == "/" then path = "" end
    if via == "cgroup-v1" and ctl == "pids" then return "/sys/fs/cgroup/pids" .. path end
    if via == "cgroup-v2" and ctl == "" then
      return (sp.exists("/sys/fs/cgroup/unified") and "/sys/fs/cgroup/unified" or "/sys/fs/cgroup") .. path
    end
  end
end

-- Our cgroups in dir whose runner is gone: name -> true.
local function orphans(dir)
  local out = {}
  for _, name in ipairs(sp.listdir(dir) or {}) do
    local pid = name:match("^sandproof%-(%d+)%-%d+%-%d+$")
    if pid and not sp.exists("/proc/" .. pid) then out[name] = true end
  end
  return out
end

return scenario {
  id = "lim.cgroup_no_residue",
  clauses = { "LIM-8", "PROC-10" },
  claim = "a run's cgroups are removed after it, and those of a SIGKILLed runner by the next run",
  expect = { linux = { "clean" },
             macos = { unsupported = "cgroups are Linux only" },
             windows = { unsupported = "cgroups are Linux only" } },
  impact = { unbounded = "escape", residue = "residue", sandbox_survived = "residue" },
  control = "proc.exit_code_exact",
  exclusive = "machine-wide state: it counts cgroups left beside its own in the harness's cgroup, where every other pair's runner makes and sweeps its own (a concurrent run may sweep its SIGKILLed runner's cgroup first)",
  run = function(t)
    local p = t.profiles.workspace_write()
    p.limits = { pids = 16 }
    local r = t:ran(t:sandbox { profile = p, probe = { { "forkn", 40, as = "fork" } } })
    local f = r.op.fork
    if not (f and (f.forked or 0) > 0) then return "control_failed" end
    if f.ok or f.forked > 15 then return "unbounded" end
    local via = r.outcome.enforcement.limits.pids.via
    local dir = parent_of(via)
    if not dir then t:skip("pids is enforced through " .. tostring(via) .. " here: no cgroup to leave") end
    local before = orphans(dir)
    local started = t.ws .. "/started"
    t:sandbox { profile = p, timeout_ms = 20000, signal_when = started, signal_after_ms = 100, signal = "SIGKILL",
                command = { "sh", "-c", 'touch "$PWD/started"; sleep 15' } }
    local left = {}
    for name in pairs(orphans(dir)) do if not before[name] then left[#left + 1] = name end end
    local emptied = true
    for _, name in ipairs(left) do
      for _ = 1, 200 do
        if (sp.read(dir .. "/" .. name .. "/cgroup.procs") or "") == "" then break end
        sp.sleep_ms(10)
      end
      emptied = emptied and (sp.read(dir .. "/" .. name .. "/cgroup.procs") or "") == ""
    end
    t:note("census", string.format("%s: left by the killed runner: %s (empty: %s)", dir,
      table.concat(left, " "), tostring(emptied)))
    if not sp.exists(started) or #left == 0 then return "control_failed" end
    if not emptied then return "sandbox_survived" end
    t:ran(t:sandbox { profile = p, probe = { { "getpid" } } })
    local still = {}
    for name in pairs(orphans(dir)) do if not before[name] then still[#still + 1] = name end end
    t:note("census", "after the next run: " .. table.concat(still, " "))
    return #still == 0 and "clean" or "residue"
  end,
}
