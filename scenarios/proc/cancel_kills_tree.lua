-- Cancel: SIGTERM to the runner 400 ms into a run cancels it and kills the
-- whole tree.  The command starts a daemon (setsid, double fork), writes
-- "started" once it runs (the positive control), then sleeps.  The daemon
-- watches the command's first process; alive 50 ms after that process is
-- gone, it writes "survived" into the workspace (the oracle: the harness
-- kills a runner's leftovers as soon as the runner exits, so a census
-- afterwards could not tell).  The outcome must be cancelled, naming the
-- signal.
return scenario {
  id = "proc.cancel_kills_tree",
  clauses = { "PROC-4", "OUT-2" },
  claim = "SIGTERM to the runner cancels the run (kind cancelled, cancel_signal SIGTERM) and kills the whole tree, daemons included",
  expect = { linux = { "cancelled" }, macos = { "cancelled" }, windows = { "cancelled" } },
  run = function(t)
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    local daemon = 'trap "" PIPE; echo $$ > "$WS/daemon.pid"; ' ..
      'while kill -0 $P 2>/dev/null && echo .; do sleep 0.01; done; ' ..
      'kill -0 $P 2>/dev/null || sleep 0.05; echo survived > "$WS/survived"; sleep 5'
    local r = t:sandbox { timeout_ms = 20000, signal_after_ms = 400, signal = "SIGTERM", command = { "sh", "-c",
      '(P=$$ WS="$PWD" setsid sh -c \'' .. daemon .. '\' ' .. marker .. ' &); ' ..
      'i=0; while [ ! -s "$PWD/daemon.pid" ] && [ $i -lt 30 ]; do sleep 0.01; i=$((i+1)); done; ' ..
      'echo started > "$PWD/started"; sleep 15' } }
    sp.sleep_ms(300)
    local o = r.outcome
    local left = sp.census { marker = marker }
    t:note("census", string.format("kind=%s cancel_signal=%s started=%s daemon=%s survived=%s processes with marker: %d",
      tostring(o.kind), tostring(o.cancel_signal), tostring(sp.exists(t.ws .. "/started")),
      tostring(sp.exists(t.ws .. "/daemon.pid")), tostring(sp.exists(t.ws .. "/survived")), #left.processes))
    if not (sp.exists(t.ws .. "/started") and sp.exists(t.ws .. "/daemon.pid")) then return "control_failed" end
    if sp.exists(t.ws .. "/survived") or #left.processes > 0 then return "survived" end
    if o.kind ~= "cancelled" or o.cancel_signal ~= "SIGTERM" then return "not_cancelled:" .. tostring(o.kind) end
    return "cancelled"
  end,
}
