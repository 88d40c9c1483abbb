-- SESS-6 and SESS-5: a running session pruned to make room is stopped,
-- not just forgotten: with --max-sessions 9 and 9 sessions running (above
-- the floor of 8), a 10th start forgets the session touched least recently
-- (the first) and its whole tree dies, a daemon that ignores SIGTERM and
-- SIGHUP included.  Each session's daemon writes "survived" into the
-- workspace 4 s after it started unless killed (then exits): the host-side
-- oracle, with the other sessions' daemons as the positive control (they
-- were not pruned, so they write it).
local N = 9

return scenario {
  id = "sess.prune_kills_tree",
  clauses = { "SESS-6", "SESS-5" },
  claim = "a running session pruned at the session limit has its whole tree killed, daemons included",
  expect = { linux = { "killed" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { survived = "residue", not_pruned = "residue", ["error:*"] = "reporting" },
  control = "sess.interrupt_kills_tree",
  run = function(t)
    local srv = t:session { max_sessions = N }
    for i = 1, N do
      local daemon = 'trap "" TERM HUP; echo $$ > "$WS/daemon-' .. i .. '.pid"; sleep 4; ' ..
        'echo survived > "$WS/survived-' .. i .. '"'
      local r = srv:start { yield_ms = 0, command = { "sh", "-c",
        '(WS="$PWD" setsid sh -c \'' .. daemon .. '\' &); exec sleep 30' } }
      if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    end
    local deadline = sp.now_ms() + 15000
    for i = 1, N do
      while sp.now_ms() < deadline and not sp.exists(t.ws .. "/daemon-" .. i .. ".pid") do sp.sleep_ms(20) end
      if not sp.exists(t.ws .. "/daemon-" .. i .. ".pid") then return "control_failed" end
    end
    local tenth = srv:start { command = { "sleep", "30" }, yield_ms = 0 }
    local first = srv:continue { session = 1, yield_ms = 0 }
    sp.sleep_ms(4500) -- past the daemons' 4 s
    t:note("note", string.format("10th start: %s; session 1 after it: %s; survived-1 %s, survived-2 %s",
      tenth.error or "started", first.error or "still known", tostring(sp.exists(t.ws .. "/survived-1")),
      tostring(sp.exists(t.ws .. "/survived-2"))))
    if tenth.error then return "error:" .. tenth.error:gsub("%s.*", "") end
    if not first.error then return "not_pruned" end
    if sp.exists(t.ws .. "/survived-1") then return "survived" end
    if not sp.exists(t.ws .. "/survived-2") then return "control_failed" end
    return "killed"
  end,
}
