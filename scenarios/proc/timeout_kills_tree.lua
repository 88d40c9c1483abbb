-- A timeout kills the whole tree, including a daemon that left the
-- command's session with setsid + double fork.  The command and the daemon
-- both ignore SIGTERM, so a runner that only asks (TERM) instead of killing
-- is caught.  The daemon's pid file is the positive control (it really
-- ran).  Oracles, on the host:
--   - the command, left alone, ends by itself 5 s after it started and
--     then writes "finished": a command killed at its 1 s timeout never
--     does;
--   - the daemon watches the command's first process; alive 50 ms after
--     that process is gone, it writes "survived";
--   - the host's process table, searched for the daemon's unique marker,
--     and the processes the harness itself had to kill once the runner
--     had exited (r.harness_killed: the harness ends a runner's leftovers
--     as soon as it exits, so a census alone could not tell).
-- (dash has no `exec -a`: the marker is the daemon shell's $0.)
return scenario {
  id = "proc.timeout_kills_tree",
  clauses = { "PROC-3" },
  claim = "when the timeout passes, every process the command started is gone, daemonized ones and ones that ignore SIGTERM included",
  expect = { linux = { "killed" }, macos = { "killed" }, windows = { unsupported = "the command is a POSIX shell script (sh, trap, setsid double fork), which native Windows lacks" } },
  impact = { not_timed_out = "reporting", survived = "residue" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: within a 1 s timeout the command must start its daemon, and the census after 300 ms must not count a tree still being torn down",
  run = function(t)
    -- the processes left are counted by the census, asked before anything runs
    t:need_primitive("census")
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    local daemon = 'trap "" TERM PIPE; echo $$ > "$WS/daemon.pid"; ' ..
      'while kill -0 $P 2>/dev/null && echo .; do sleep 0.01; done; ' ..
      'kill -0 $P 2>/dev/null || sleep 0.05; echo survived > "$WS/survived"; sleep 5'
    local r = t:sandbox {
      timeout_ms = 1000,
      command = { "sh", "-c", 'trap "" TERM; (P=$$ WS="$PWD" setsid sh -c \'' .. daemon .. '\' ' .. marker .. ' &); ' ..
        'i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; echo finished > "$PWD/finished"' },
    }
    local kind = r.outcome.kind
    sp.sleep_ms(300)
    local left = sp.census { marker = marker }
    local ended = { daemon = sp.exists(t.ws .. "/daemon.pid"), survived = sp.exists(t.ws .. "/survived"),
                    finished = sp.exists(t.ws .. "/finished") }
    t:note("census", string.format("kind=%s daemon started=%s command finished by itself=%s daemon survived=%s " ..
      "processes with marker: %d; left for the harness to kill: %s", tostring(kind), tostring(ended.daemon),
      tostring(ended.finished), tostring(ended.survived), #left.processes, tostring(r.harness_killed)))
    if not ended.daemon then return "control_failed" end
    if ended.finished or ended.survived or #left.processes > 0 or (r.harness_killed or 0) > 0 then
      return "survived"
    end
    if kind ~= "timed_out" then return "not_timed_out" end
    return "killed"
  end,
}
