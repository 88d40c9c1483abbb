-- PROC-4: each of SIGINT, SIGTERM and SIGHUP sent to the runner cancels the
-- run: the outcome is cancelled and names the signal, and the command is
-- killed (host-side: its mark written 6 s after it started never lands).
-- proc.cancel_kills_tree covers SIGTERM with daemons and TERM-ignoring
-- processes; here every signal of the clause gets its own run.  Positive
-- control: the command's first mark, written before the signal, lands.
return scenario {
  id = "proc.cancel_signals",
  clauses = { "PROC-4", "OUT-2" },
  claim = "SIGINT, SIGTERM and SIGHUP to the runner each cancel the run (kind cancelled naming the signal) and kill the command",
  expect = { linux = { "cancelled" }, macos = { "cancelled" }, windows = { unsupported = "the command is a POSIX shell script (sh), and Windows cannot deliver SIGINT, SIGTERM or SIGHUP to one process: the harness signals a runner there with SIGKILL only (TerminateProcess)" } },
  impact = { ["not_killed:*"] = "residue", ["misreported:*"] = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: each signal comes 1.5 s after the start, by which time the command must have started",
  run = function(t)
    for _, sig in ipairs { "SIGINT", "SIGTERM", "SIGHUP" } do
      local started, finished = t.ws .. "/started-" .. sig, t.ws .. "/finished-" .. sig
      local r = t:sandbox { timeout_ms = 20000, signal_after_ms = 1500, signal = sig, command = { "sh", "-c",
        'echo x > "$0"; i=0; while [ $i -lt 60 ]; do sleep 0.1; i=$((i+1)); done; echo x > "$1"',
        started, finished } }
      local o = r.outcome
      t:note("note", string.format("%s: kind %s cancel_signal %s; started %s finished %s", sig, tostring(o.kind),
        tostring(o.cancel_signal), tostring(sp.exists(started)), tostring(sp.exists(finished))))
      if not sp.exists(started) then return "control_failed" end
      if sp.exists(finished) then return "not_killed:" .. sig end
      if o.kind ~= "cancelled" or o.cancel_signal ~= sig then return "misreported:" .. sig end
    end
    return "cancelled"
  end,
}
