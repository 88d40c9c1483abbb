-- A timeout kills the whole tree, including a daemon that left the
-- command's session with setsid + double fork.  The oracle is the host's
-- process table, searched for the daemon's unique marker.
return scenario {
  id = "proc.timeout_kills_tree",
  clauses = { "PROC-3" },
  claim = "when the timeout passes, every process the command started is gone, daemonized ones included",
  expect = { linux = { "killed" }, macos = { "killed" }, windows = { "killed" } },
  run = function(t)
    local marker = string.format("sandproof-daemon-%d-%d", sp.getpid(), t.seed)
    local r = t:sandbox {
      timeout_ms = 1500,
      command = { "sh", "-c", "setsid sh -c 'exec -a " .. marker ..
        " sleep 600' </dev/null >/dev/null 2>&1 & sleep 600" },
    }
    local kind = r.outcome.kind
    sp.sleep_ms(200)
    local left = sp.census { marker = marker }
    t:note("census", string.format("kind=%s processes with marker: %d", tostring(kind), #left.processes))
    if kind ~= "timed_out" then return "not_timed_out" end
    return #left.processes == 0 and "killed" or "survived"
  end,
}
