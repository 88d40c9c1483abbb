-- SESS-6 at its floor: with --max-sessions 8 and exactly 8 sessions
-- running, a start is refused (running sessions are pruned only while more
-- than 8 run) and every one of the 8 survives.  The boundary itself, not a
-- smaller limit: a server that prunes at 8 running passes a limit of 2.
-- Host-side oracle: each command, given a line after the refused start,
-- writes it into the workspace.
return scenario {
  id = "sess.floor_at_limit",
  clauses = { "SESS-6" },
  claim = "at --max-sessions 8 with 8 sessions running a start is refused and all 8 keep running",
  expect = { linux = { "refused_all_kept" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { limit_ignored = "residue", ["running_pruned:*"] = "reporting", ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session { max_sessions = 8 }
    local ids = {}
    for i = 1, 8 do
      local r = srv:start { yield_ms = 0, command = { "sh", "-c",
        'while read x; do echo "$x" > "$PWD/got-' .. i .. '"; done' } }
      if r.error then return "error:" .. r.error:gsub("%s.*", "") end
      ids[i] = r.session
    end
    local ninth = srv:start { command = { "true" }, yield_ms = 0 }
    t:note("note", "the 9th start: " .. (ninth.error or ("session " .. tostring(ninth.session))))
    for i, id in ipairs(ids) do
      local c = srv:continue { session = id, input = "line" .. i .. "\n", yield_ms = 0 }
      if c.error then return "running_pruned:" .. i end
    end
    local deadline = sp.now_ms() + 15000
    for i = 1, 8 do
      while sp.read(t.ws .. "/got-" .. i) ~= "line" .. i .. "\n" and sp.now_ms() < deadline do
        sp.sleep_ms(50)
      end
      if sp.read(t.ws .. "/got-" .. i) ~= "line" .. i .. "\n" then return "running_pruned:" .. i end
    end
    if not (ninth.error and ninth.error:find("session limit", 1, true)) then return "limit_ignored" end
    return "refused_all_kept"
  end,
}
