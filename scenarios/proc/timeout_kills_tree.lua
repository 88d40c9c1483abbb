-- A timeout kills the whole tree, including a daemon that left the
-- command's session with setsid + double fork.  The daemon's pid file is
-- the positive control (it really ran).  The daemon watches the command's
-- first process; alive 50 ms after that process is gone, it writes
-- "survived" into the workspace.  That file is the oracle, with the host's
-- process table (searched for the daemon's unique marker) as a second
-- one: the harness kills a runner's leftovers as soon as the runner exits,
-- so a census alone could not tell.  (dash has no `exec -a`: the marker is
-- the daemon shell's $0.)
return scenario {
  id = "proc.timeout_kills_tree",
  clauses = { "PROC-3" },
  claim = "when the timeout passes, every process the command started is gone, daemonized ones included",
  expect = { linux = { "killed" }, macos = { "killed" }, windows = { "killed" } },
  run = function(t)
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    local daemon = 'trap "" PIPE; echo $$ > "$WS/daemon.pid"; ' ..
      'while kill -0 $P 2>/dev/null && echo .; do sleep 0.01; done; ' ..
      'kill -0 $P 2>/dev/null || sleep 0.05; echo survived > "$WS/survived"; sleep 5'
    local r = t:sandbox {
      timeout_ms = 1000,
      command = { "sh", "-c", '(P=$$ WS="$PWD" setsid sh -c \'' .. daemon .. '\' ' .. marker .. ' &); sleep 600' },
    }
    local kind = r.outcome.kind
    sp.sleep_ms(300)
    local left = sp.census { marker = marker }
    t:note("census", string.format("kind=%s daemon started=%s survived=%s processes with marker: %d",
      tostring(kind), tostring(sp.exists(t.ws .. "/daemon.pid")), tostring(sp.exists(t.ws .. "/survived")),
      #left.processes))
    if not sp.exists(t.ws .. "/daemon.pid") then return "control_failed" end
    if sp.exists(t.ws .. "/survived") or #left.processes > 0 then return "survived" end
    if kind ~= "timed_out" then return "not_timed_out" end
    return "killed"
  end,
}
