-- SESS-4: a call with input may wait at most 30 s whatever yield_ms asks:
-- a continue with input and yield_ms of a day, on a command that runs for
-- 50 s after reading it, must come back before the command ends (the
-- response says not exited).  The harness waits up to 120 s for it.
return scenario {
  id = "sess.yield_clamped",
  clauses = { "SESS-4" },
  claim = "a call with input returns within the clamp (30 s) however long yield_ms asks",
  expect = { linux = { "clamped" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { not_clamped = "reporting", no_response = "reporting", ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session {}
    local r = srv:start { command = { "sh", "-c", "read x; exec sleep 50" }, yield_ms = 0 }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local c = srv:raw(sp.json_encode { op = "continue", session = r.session, input = "go\n",
                                       yield_ms = 86400000 }, 60000)
    t:note("note", string.format("the call returned after %d ms: exited %s %s", math.floor(c.wait_ms or -1),
      tostring(c.exited), c.error or ""))
    if c.broken then return "no_response" end
    if c.error then return "error:" .. c.error:gsub("%s.*", "") end
    if c.exited then return "not_clamped" end
    return "clamped"
  end,
}
