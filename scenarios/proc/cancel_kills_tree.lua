-- Cancel: SIGTERM to the runner 400 ms into a run cancels it and kills the
-- whole tree.  The command starts a daemon (setsid, double fork), writes
-- "started" once it runs (the positive control), then sleeps; both ignore
-- SIGTERM, so a runner that passes the TERM on instead of killing is
-- caught.  Oracles, on the host: the command, left alone, ends by itself
-- 5 s after it started and writes "finished"; the daemon watches the
-- command's first process and, alive 50 ms after that process is gone,
-- writes "survived" (the harness kills a runner's leftovers as soon as the
-- runner exits, so a census afterwards could not tell - r.harness_killed
-- counts what it had to kill).  The outcome must be cancelled, naming the
-- signal.
local lib = require "sandproof.lib"

return scenario {
  id = "proc.cancel_kills_tree",
  clauses = { "PROC-4", "OUT-2" },
  claim = "SIGTERM to the runner cancels the run (kind cancelled, cancel_signal SIGTERM) and kills the whole tree, daemons and processes that ignore SIGTERM included",
  expect = { linux = { "cancelled" }, macos = { "cancelled" }, windows = { unsupported = "the command is a POSIX shell script (sh, trap, setsid), and Windows cannot deliver SIGTERM to one process: the harness signals a runner there with SIGKILL only (TerminateProcess)" } },
  impact = { ["not_cancelled:*"] = "reporting", survived = "residue" },
  control = "fs.workspace_writable",
  exclusive = "a residue check after a kill: survivors are counted 300 ms after the runner's end, a grace that other pairs' load would eat into (a false residue) or stretch (a survivor writing late)",
  run = function(t)
    -- the processes left are counted by the census, asked before anything runs
    t:need_primitive("census")
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    local r = t:sandbox { timeout_ms = 20000, signal_when = t.ws .. "/started", signal_after_ms = 100,
      signal = "SIGTERM", command = { "sh", "-c",
      'trap "" TERM; ' .. lib.sh_term_daemon { marker = marker, tries = 30, grace = "gone" } .. 'echo started > "$PWD/started"; ' ..
      'i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; echo finished > "$PWD/finished"' } }
    sp.sleep_ms(300)
    local o = r.outcome
    local left = sp.census { marker = marker }
    local seen = { started = sp.exists(t.ws .. "/started"), daemon = sp.exists(t.ws .. "/daemon.pid"),
                   survived = sp.exists(t.ws .. "/survived"), finished = sp.exists(t.ws .. "/finished") }
    t:note("census", string.format("kind=%s cancel_signal=%s started=%s daemon=%s command finished by itself=%s " ..
      "daemon survived=%s processes with marker: %d; left for the harness to kill: %s", tostring(o.kind),
      tostring(o.cancel_signal), tostring(seen.started), tostring(seen.daemon), tostring(seen.finished),
      tostring(seen.survived), #left.processes, tostring(r.harness_killed)))
    if not (seen.started and seen.daemon) then return "control_failed" end
    if seen.finished or seen.survived or #left.processes > 0 or (r.harness_killed or 0) > 0 then
      return "survived"
    end
    if o.kind ~= "cancelled" or o.cancel_signal ~= "SIGTERM" then return "not_cancelled:" .. tostring(o.kind) end
    return "cancelled"
  end,
}
