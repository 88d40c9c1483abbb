-- SESS-2: a session runs under the enforcement `run` applies: a write
-- outside the write roots does not land (host-side oracle: the victim file
-- and the absence of a new one), a write inside does, and the outcome's
-- enforcement is the run's.
return scenario {
  id = "sess.enforced_like_run",
  clauses = { "SESS-2", "FS-1" },
  claim = "a session's command is confined as a run's: writes land only in the write roots",
  expect = { linux = { "confined" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { escaped = "escape", not_exited = "reporting", ["error:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local srv = t:session {}
    local r = srv:start { yield_ms = 10000, command = { "sh", "-c",
      'echo x > "$1/victim"; echo x > "$1/new"; echo in > "$PWD/inside"; echo done', "sh", t.outside } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local c = r.exited and { last = r } or srv:collect(r.session, { max_ms = 20000 })
    local victim, new = sp.read(t.outside .. "/victim"), sp.exists(t.outside .. "/new")
    t:note("note", string.format("victim %q, new file %s, inside %s", tostring(victim), tostring(new),
      tostring(sp.exists(t.ws .. "/inside"))))
    if victim ~= "untouched\n" or new then return "escaped" end
    if not c.last.exited then return "not_exited" end
    if not sp.exists(t.ws .. "/inside") then return "control_failed" end
    return "confined"
  end,
}
