-- SESS-1: input reaches a running session's stdin; input to a session that
-- has exited is refused by name, never silently dropped.
return scenario {
  id = "sess.stdin_finished",
  clauses = { "SESS-1" },
  claim = "input reaches a running session, and input to a finished session is refused with an error naming it",
  expect = { linux = { "refused" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { accepted = "reporting", not_delivered = "fidelity", not_exited = "reporting",
             ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session {}
    local r = srv:start { command = { "sh", "-c", 'read x; echo "got:$x"' }, yield_ms = 0 }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local a = srv:continue { session = r.session, input = "first\n", yield_ms = 10000 }
    local c = a.exited and { last = a, output = "" } or srv:collect(r.session, { max_ms = 10000 })
    local out = (r.output or "") .. (a.output or "") .. (c.output or "")
    if not out:find("got:first", 1, true) then return "not_delivered" end
    if not c.last.exited then return "not_exited" end
    local b = srv:continue { session = r.session, input = "second\n", yield_ms = 0 }
    t:note("note", "input after the exit: " .. (b.error or ("accepted: " .. sp.json_encode(b))))
    if not (b.error and b.error:find("exited", 1, true) and b.error:find("input", 1, true)) then
      return "accepted"
    end
    return "refused"
  end,
}
