-- SESS-6 with --max-sessions 2 and --retain-ms 1500: at the limit a start
-- forgets the finished session (never a running one while 8 or fewer run:
-- then the start is refused), and a finished session is forgotten once its
-- retention passed.  The oracle is the server's own answers (list and
-- continue) plus the running session's command, which must still answer.
return scenario {
  id = "sess.retention_prune",
  clauses = { "SESS-6" },
  claim = "at the session limit the finished session is pruned first, running ones are kept under the floor, and finished sessions are forgotten after the retention time",
  expect = { linux = { "pruned_in_order" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { finished_kept = "residue", running_pruned = "reporting", limit_ignored = "residue",
             retained_forever = "residue", forgotten_early = "reporting", ["error:*"] = "reporting" },
  exclusive = "a load-sensitive window: a retention of 1.5 s checked 2.5 s later, in wall time that other pairs would stretch",
  run = function(t)
    local srv = t:session { max_sessions = 2, retain_ms = 1500 }
    local a = srv:start { command = { "true" }, yield_ms = 10000 }
    if a.error then return "error:" .. a.error:gsub("%s.*", "") end
    if not a.exited then a = srv:collect(a.session, { max_ms = 10000 }).last end
    local b = srv:start { command = { "sh", "-c", "read x; echo got:$x" }, yield_ms = 0 }
    local c = srv:start { command = { "sleep", "30" }, yield_ms = 0 }   -- at the limit: a goes
    if b.error or c.error then return "error:" .. tostring(b.error or c.error):gsub("%s.*", "") end
    local a_again = srv:continue { session = a.session, yield_ms = 0 }
    local d = srv:start { command = { "true" }, yield_ms = 0 }          -- two running: refused
    local b_alive = srv:continue { session = b.session, input = "ok\n", yield_ms = 10000 }
    t:note("note", string.format("a after c started: %s; d: %s; b: %s", a_again.error or "still known",
      d.error or "started", b_alive.error or tostring(b_alive.output)))
    if not a_again.error then return "finished_kept" end
    if b_alive.error then return "running_pruned" end
    if not d.error then return "limit_ignored" end
    if not (b_alive.output or ""):find("got:ok", 1, true) then return "running_pruned" end
    -- b has exited now: known within its retention, forgotten after it
    local soon = srv:continue { session = b.session, yield_ms = 0 }
    sp.sleep_ms(2500)
    local later = srv:continue { session = b.session, yield_ms = 0 }
    t:note("note", string.format("b right after its exit: %s; 2.5 s later: %s",
      soon.error or "known", later.error or "known"))
    if soon.error then return "forgotten_early" end
    if not later.error then return "retained_forever" end
    return "pruned_in_order"
  end,
}
