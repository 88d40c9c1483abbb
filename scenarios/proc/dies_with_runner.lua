-- The sandbox dies with its runner: SIGKILL to the runner 400 ms into a
-- run (no chance to clean up) must take the command and a daemonized
-- grandchild with it.  The command starts the daemon, writes "started"
-- (the positive control), then sleeps; both ignore SIGTERM, so a sandbox
-- that dies with its runner only by a SIGTERM is caught.  The daemon
-- writes to the runner's capture pipe every 10 ms with SIGPIPE ignored:
-- when the runner is gone the write fails (EPIPE), or the command's first
-- process is gone; a daemon still alive 50 ms after either writes
-- "survived" into the workspace (the kernel's teardown of the sandbox
-- after the runner's death is not instantaneous: without that grace a
-- daemon killed a moment later was counted as a survivor).  That file is
-- the oracle (the harness kills a runner's leftovers as soon as the runner
-- exits, so a census afterwards could not tell).
-- Then the probe form, the only one on Windows and Wine (no sh): the command
-- is the probe, which starts a daemon (spawn_daemon: setsid and a double
-- fork; on Windows a detached process asking to break away from the job),
-- writes "started" and sleeps; the runner is SIGKILLed 100 ms after
-- (TerminateProcess on Windows).  Its oracles: no process with its marker
-- (in the daemon's pidfile name, which a Windows daemon's command line
-- names) once the runner is gone, and none the harness had to kill
-- (r.harness_killed).  Positive control: started, and the pid file.

local lib = require "sandproof.lib"

-- The shell form: a daemon that ignores SIGTERM and reports its survival.
local function shell_form(t, marker)
  local r = t:sandbox { timeout_ms = 20000, signal_when = t.ws .. "/started", signal_after_ms = 100,
    signal = "SIGKILL", command = { "sh", "-c",
    'trap "" TERM; ' .. lib.sh_term_daemon { marker = marker, tries = 30, grace = "always" } .. 'echo started > "$PWD/started"; sleep 15' } }
  sp.sleep_ms(300)
  local left = sp.census { marker = marker }
  t:note("census", string.format("shell form: kind=%s started=%s daemon=%s survived=%s processes with marker: %d; " ..
    "left for the harness to kill: %s", tostring(r.outcome.kind), tostring(sp.exists(t.ws .. "/started")),
    tostring(sp.exists(t.ws .. "/daemon.pid")), tostring(sp.exists(t.ws .. "/survived")), #left.processes,
    tostring(r.harness_killed)))
  if not (sp.exists(t.ws .. "/started") and sp.exists(t.ws .. "/daemon.pid")) then return "control_failed" end
  if sp.exists(t.ws .. "/survived") or #left.processes > 0 or (r.harness_killed or 0) > 0 then
    return "survived"
  end
  return "died"
end

local function probe_form(t, marker)
  local pidfile, started = t.ws .. "/" .. marker .. ".pid", t.ws .. "/started-probe"
  local r = t:sandbox { timeout_ms = 20000, signal_when = started, signal_after_ms = 100, signal = "SIGKILL",
    probe = { { "env", marker }, { "spawn_daemon", pidfile }, { "write", started, "started\n" },
              { "sleep", 15000 } } }
  sp.sleep_ms(300)
  local left = sp.census { marker = marker }
  t:note("census", string.format("probe form: kind=%s started=%s daemon pid file %s; processes with marker: %d; " ..
    "left for the harness to kill: %s", tostring(r.outcome.kind), tostring(sp.exists(started)),
    tostring(sp.exists(pidfile)), #left.processes, tostring(r.harness_killed)))
  if not (sp.exists(started) and sp.exists(pidfile)) then return "control_failed" end
  if #left.processes > 0 or (r.harness_killed or 0) > 0 then return "survived" end
  return "died"
end

return scenario {
  id = "proc.dies_with_runner",
  clauses = { "PROC-10" },
  claim = "a SIGKILLed runner leaves no sandboxed process behind, daemonized ones and ones that ignore SIGTERM included",
  expect = { linux = { "died" }, macos = { "died" }, windows = { "died" } },
  impact = { survived = "residue" },
  control = "fs.workspace_writable",
  exclusive = "a residue check after a kill: survivors are counted 300 ms after the runner's SIGKILL, a grace that other pairs' load would eat into (a false residue) or stretch (a survivor writing late)",
  run = function(t)
    -- the processes left are counted by the census, asked before anything runs
    t:need_primitive("census")
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    if sp.os ~= "windows" and sp.os ~= "wine" then
      local v = shell_form(t, marker)
      if v ~= "died" then return v end
    end
    return probe_form(t, marker .. "-probe")
  end,
}
