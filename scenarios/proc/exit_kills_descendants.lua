-- The run ends when the command's first process ends, and descendants
-- still alive then are killed, daemonized ones included.  The command
-- starts a daemon (setsid, double fork) that ignores SIGTERM, so only a
-- real kill ends it, and exits 0 once the daemon is running (its pid file
-- is the positive control).  The daemon watches the
-- command's first process; if it is still alive 50 ms after that process
-- is gone, it writes "survived" into the workspace.  That file, not a
-- process listing, is the oracle: the harness itself kills whatever a
-- runner leaves behind as soon as the runner exits, so a census taken
-- afterwards would find nothing either way.
-- Then the probe form, the only one on Windows and Wine (no sh): the command
-- is the probe, which starts a daemon (spawn_daemon: setsid and a double
-- fork; on Windows a detached process asking to break away from the job)
-- and exits 0.  Its oracles: no process with its marker (in the daemon's
-- pidfile name, which a Windows daemon's command line names) once the run
-- is over, and none the harness had to kill once the runner had exited
-- (r.harness_killed: it kills those at once).  Positive control, in both
-- forms: the daemon wrote its pid file.

local lib = require "sandproof.lib"

-- The shell form: a daemon that ignores SIGTERM and reports its survival.
local function shell_form(t, marker)
  local r = t:sandbox { timeout_ms = 10000, command = { "sh", "-c", lib.sh_term_daemon { marker = marker, tries = 200, grace = "gone" } .. 'exit 0' } }
  sp.sleep_ms(300) -- a survivor writes 50 ms after the command is gone
  local left = sp.census { marker = marker }
  t:note("census", string.format("shell form: kind=%s daemon started=%s survived=%s processes with marker: %d",
    tostring(r.outcome.kind), tostring(sp.exists(t.ws .. "/daemon.pid")),
    tostring(sp.exists(t.ws .. "/survived")), #left.processes))
  if not sp.exists(t.ws .. "/daemon.pid") then return "control_failed" end
  if r.outcome.kind ~= "success" then return "run_failed:" .. tostring(r.outcome.kind) end
  if sp.exists(t.ws .. "/survived") or #left.processes > 0 then return "survived" end
  return "killed"
end

local function probe_form(t, marker)
  local pidfile = t.ws .. "/" .. marker .. ".pid"
  local r = t:sandbox { timeout_ms = 10000, probe = { { "env", marker }, { "spawn_daemon", pidfile } } }
  sp.sleep_ms(300)
  local left = sp.census { marker = marker }
  t:note("census", string.format("probe form: kind=%s daemon pid file %s; processes with marker: %d, " ..
    "left for the harness to kill: %s", tostring(r.outcome.kind), tostring(sp.exists(pidfile)),
    #left.processes, tostring(r.harness_killed)))
  if not sp.exists(pidfile) then return "control_failed" end
  if r.outcome.kind ~= "success" then return "run_failed:" .. tostring(r.outcome.kind) end
  if #left.processes > 0 or (r.harness_killed or 0) > 0 then return "survived" end
  return "killed"
end

return scenario {
  id = "proc.exit_kills_descendants",
  clauses = { "PROC-5", "PROC-9" },
  claim = "when the command's first process exits, every descendant it left, daemonized ones and ones that ignore SIGTERM included, is killed",
  expect = { linux = { "killed" }, macos = { "killed" }, windows = { "killed" } },
  impact = { ["run_failed:*"] = "fidelity", survived = "residue" },
  control = "fs.workspace_writable",
  exclusive = "a residue check: survivors are counted 300 ms after the runner exits (a survivor writes 50 ms after the command is gone), a grace that other pairs' load would eat into or stretch",
  run = function(t)
    -- the processes left are counted by the census, asked before anything runs
    t:need_primitive("census")
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    if sp.os ~= "windows" and sp.os ~= "wine" then
      local v = shell_form(t, marker)
      if v ~= "killed" then return v end
    end
    return probe_form(t, marker .. "-probe")
  end,
}
