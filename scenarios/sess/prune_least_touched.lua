-- SESS-6's order among finished sessions: at the limit a start forgets the
-- finished session touched least recently, not the one started first.  Two
-- finished sessions a (older) and b; a poll then touches a, so b is the
-- least recently touched: starting c must forget b and keep a, whose outcome
-- is still there to collect.  A server pruning by start order forgets a (the
-- seed's bug class: a session the client is using disappears under it).
-- The oracle is the server's own answers.
return scenario {
  id = "sess.prune_least_touched",
  clauses = { "SESS-6" },
  claim = "at the session limit the finished session touched least recently is forgotten, never one a client touched since",
  expect = { linux = { "pruned_least_touched" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { touched_pruned = "reporting", nothing_pruned = "residue", ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session { max_sessions = 2, retain_ms = 60000 }
    local function finished(cmd)
      local r = srv:start { command = cmd, yield_ms = 10000 }
      if r.error then return nil, r.error end
      if not r.exited then r = srv:collect(r.session, { max_ms = 10000 }).last end
      return r
    end
    local a, ea = finished { "sh", "-c", "echo a" }
    if not a then return "error:" .. ea:gsub("%s.*", "") end
    sp.sleep_ms(20)
    local b, eb = finished { "sh", "-c", "echo b" }
    if not b then return "error:" .. eb:gsub("%s.*", "") end
    sp.sleep_ms(20)
    local touch = srv:continue { session = a.session, yield_ms = 0 }   -- a is now the newer
    if touch.error then return "error:" .. touch.error:gsub("%s.*", "") end
    sp.sleep_ms(20)
    local c = srv:start { command = { "true" }, yield_ms = 0 }         -- at the limit
    if c.error then return "error:" .. c.error:gsub("%s.*", "") end
    local a_again = srv:continue { session = a.session, yield_ms = 0 }
    local b_again = srv:continue { session = b.session, yield_ms = 0 }
    t:note("note", string.format("after c started: a %s, b %s",
      a_again.error or "known", b_again.error or "known"))
    if a_again.error then return "touched_pruned" end
    if not b_again.error then return "nothing_pruned" end
    return "pruned_least_touched"
  end,
}
