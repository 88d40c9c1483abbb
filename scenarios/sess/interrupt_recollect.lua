-- SESS-5's stickiness where the seed lost it: the exit of an interrupted
-- session collected by a later call.  An interrupt sent with yield 0 returns
-- before the session has exited; the polls that follow, the one that
-- collects the exit, a re-collect after it and `list` must all say
-- `interrupted`, and the outcome must be the cancellation.  The same for a
-- session ended by `stop` and re-collected after.  The oracle is the
-- server's answers, each one checked.
return scenario {
  id = "sess.interrupt_recollect",
  clauses = { "SESS-5" },
  claim = "an interrupted or stopped session says interrupted in every later response, the ones that collect its exit included",
  expect = { linux = { "sticky" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { lost_on_collect = "reporting", lost_on_recollect = "reporting", lost_in_list = "reporting",
             lost_after_stop = "reporting", not_exited = "residue", not_cancelled = "reporting",
             ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session {}
    local r = srv:start { command = { "sleep", "30" }, yield_ms = 0 }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local id, states = r.session, {}
    states[1] = srv:continue { session = id, interrupt = true, yield_ms = 0 }
    local deadline = sp.now_ms() + 15000
    while not states[#states].exited and sp.now_ms() < deadline do
      states[#states + 1] = srv:continue { session = id, yield_ms = 200 }
    end
    local last = states[#states]
    if last.error then
      t:note("note", "call " .. #states .. ": " .. last.error)
      return "error:" .. last.error:gsub("%s.*", "")
    end
    if not last.exited then return "not_exited" end
    for _, s in ipairs(states) do
      if not s.interrupted then return "lost_on_collect" end
    end
    t:note("note", "exit collected by: " .. sp.json_encode(last):sub(1, 600))
    local o = last.outcome or {}
    local again = srv:continue { session = id, yield_ms = 0 }
    local listed
    for _, s in ipairs((srv:list().sessions) or {}) do
      if s.session == id then listed = s end
    end
    t:note("note", string.format("%d calls until exited (first: exited %s); kind %s; re-collect interrupted %s; list %s",
      #states, tostring(states[1].exited), tostring(o.kind), tostring(again.interrupted),
      listed and tostring(listed.interrupted) or "absent"))
    if o.kind ~= "cancelled" then return "not_cancelled" end
    if not again.interrupted then return "lost_on_recollect" end
    if not (listed and listed.interrupted) then return "lost_in_list" end
    local s2 = srv:start { command = { "sleep", "30" }, yield_ms = 0 }
    if s2.error then return "error:" .. s2.error:gsub("%s.*", "") end
    local stopped = srv:stop(s2.session)
    local after = srv:continue { session = s2.session, yield_ms = 0 }
    t:note("note", string.format("stop: exited %s interrupted %s; after: interrupted %s",
      tostring(stopped.exited), tostring(stopped.interrupted), tostring(after.interrupted)))
    if not stopped.exited then return "not_exited" end
    if not (stopped.interrupted and after.interrupted) then return "lost_after_stop" end
    return "sticky"
  end,
}
