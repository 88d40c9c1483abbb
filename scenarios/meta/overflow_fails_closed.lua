-- META-4: when the protected-create monitor's event queue overflows, some
-- create may have gone unseen: the runner must stop the run and report it
-- (fail closed), not go on.  The absent .agents and .zero make the
-- workspace a watched directory.  The command is held at its first sleep;
-- meanwhile the runner process is stopped (SIGSTOP, by pid: the process
-- this harness started that the command descends from), more entries than
-- the kernel queues
-- (fs.inotify.max_queued_events) are created in the workspace from the
-- host, and the runner is continued: the queue it reads then holds an
-- overflow.  The command's write 1.5 s later must never land, and the
-- outcome must be enforcement_denied with a typed protected_* denial.
-- Positive controls: the command's first write landed, the held call came
-- and the flood was made.
local function protected_denial(o)
  for _, d in ipairs(o.denials or {}) do
    if type(d.kind) == "string" and d.kind:match("^protected_") then return true end
  end
  return false
end

local function ppid(pid)
  local s = sp.read("/proc/" .. tostring(pid) .. "/status") or ""
  return tonumber(s:match("\nPPid:%s*(%d+)"))
end

-- The process this harness started that pid descends from (the runner
-- under test), or nil: only ever a descendant of ours is stopped.
local function started_by_us(pid)
  local me, cur = sp.getpid(), pid
  while cur and cur > 1 do
    local up = ppid(cur)
    if up == me then return cur end
    cur = up
  end
  return nil
end

return scenario {
  id = "meta.overflow_fails_closed",
  clauses = { "META-4" },
  claim = "an overflow of the protected-create monitor's event queue stops the run and is reported",
  expect = { linux = { "stopped" },
             macos = { unsupported = "checks the Linux protection monitor's event-queue overflow (during a seccomp hold); Seatbelt denies by path and has no monitor" },
             windows = { unsupported = "the monitor is flooded during a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { not_stopped = "hardening", unreported = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: after a flood of more events than the kernel queues, the runner must read its queue to the overflow and stop the command within 1.5 s",
  run = function(t)
    if sp.exists(t.ws .. "/.agents") then t:error(".agents exists before the run") end
    local max = tonumber(sp.read("/proc/sys/fs/inotify/max_queued_events") or "")
    if not max then t:skip("no /proc/sys/fs/inotify/max_queued_events") end
    local n = max + 1024
    local started, after = t.ws .. "/started", t.ws .. "/after.txt"
    local flooded, runner
    local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1, comm = "sandproof-probe",
      sandbox = { probe = {
        { "write", started, "ok" },                               -- positive control
        { "sleep", 1500 },                                        -- held here; then room to stop it
        { "write", after, "x" },
      } },
      action = function(_, _, pid)
        runner = started_by_us(pid)
        if not runner then return end
        local f = sp.spawn { timeout_ms = 60000, argv = { "sh", "-c",
          'kill -STOP "$1" || exit 1; cd "$2" && i=0; while [ $i -lt "$3" ]; do : > "flood-$i" || break; ' ..
          'i=$((i+1)); done; kill -CONT "$1"; [ $i -eq "$3" ]', "flood", tostring(runner), t.ws, tostring(n) } }
        flooded = f and f.code == 0
      end }
    local o = r.outcome
    t:note("note", string.format("held sleep hit %s; runner pid %s; %d entries created: %s; kind %s denials %s",
      tostring(r.hold_hit), tostring(runner), n, tostring(flooded), tostring(o.kind),
      sp.json_encode(o.denials or {})))
    t:ran(r)
    if sp.read(started) ~= "ok" or not r.hold_hit or not flooded then return "control_failed" end
    if sp.exists(after) then return "not_stopped" end
    if o.kind ~= "enforcement_denied" or not protected_denial(o) then return "unreported" end
    return "stopped"
  end,
}
