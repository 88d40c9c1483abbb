-- OUT-8 for a session: while the session runs, the harness writes into
-- the outside directory (directly and through a symlink planted in the
-- workspace before the start); the session's outcome lists what the
-- command wrote in the workspace and nothing of that.
return scenario {
  id = "sess.changes_outside_absent",
  clauses = { "OUT-8", "SESS-1" },
  claim = "a session's outcome lists its command's changes under the write roots and never a change outside them",
  expect = { linux = { "reported" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { missed = "reporting", outside_listed = "reporting", no_changes = "reporting",
             not_exited = "reporting", ["error:*"] = "reporting" },
  run = function(t)
    sp.symlink(t.outside, t.ws .. "/link")
    local srv = t:session {}
    local r = srv:start { yield_ms = 0, command = { "sh", "-c", 'echo started; read x; echo "$x" > "$PWD/made"' } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    -- the baseline is taken before the command starts: wait for it
    local out, deadline = r.output or "", sp.now_ms() + 10000
    while not out:find("started", 1, true) and sp.now_ms() < deadline do
      out = out .. (srv:continue { session = r.session, yield_ms = 100 }.output or "")
    end
    if not out:find("started", 1, true) then return "error:not_started" end
    sp.write(t.outside .. "/host_new", "written by the host during the session\n")
    sp.write(t.outside .. "/victim", "changed by the host\n")
    local a = srv:continue { session = r.session, input = "hello\n", yield_ms = 10000 }
    local last = a.exited and a or srv:collect(r.session, { max_ms = 20000 }).last
    if last.error then return "error:" .. last.error:gsub("%s.*", "") end
    if not last.exited then return "not_exited" end
    local ch = last.outcome and last.outcome.changes
    t:note("note", "changes: " .. sp.json_encode(ch or sp.null))
    if type(ch) ~= "table" or type(ch.entries) ~= "table" then return "no_changes" end
    local made = false
    for _, e in ipairs(ch.entries) do
      if e.path:sub(1, #t.ws + 1) ~= t.ws .. "/" or e.path:find(t.ws .. "/link/", 1, true) then
        return "outside_listed"
      end
      if e.op == "created" and e.path == t.ws .. "/made" then made = true end
    end
    return made and "reported" or "missed"
  end,
}
