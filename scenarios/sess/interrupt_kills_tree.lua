-- SESS-5: `interrupt` ends the session's whole tree, a daemonized
-- descendant that ignores SIGTERM included, and `interrupted` stays true
-- in every later response, the one that collects the exit included.  The
-- daemon writes "survived" into the workspace 4 s after it started unless
-- it was killed (then exits: it never outlives the scenario for long); that
-- file is the host-side oracle.
return scenario {
  id = "sess.interrupt_kills_tree",
  clauses = { "SESS-5" },
  claim = "interrupting a session kills its whole tree, daemons included, and every later response says interrupted",
  expect = { linux = { "killed" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { survived = "residue", not_sticky = "reporting", not_exited = "residue",
             not_cancelled = "reporting", ["error:*"] = "reporting" },
  control = "proc.exit_kills_descendants",
  exclusive = "a load-sensitive window: the daemon writes its survival 4 s after its start and the oracle reads it 4.5 s after the interrupt; a starved daemon writing late would hide a survivor",
  run = function(t)
    local srv = t:session {}
    local daemon = 'trap "" TERM HUP; echo $$ > "$WS/daemon.pid"; sleep 4; echo survived > "$WS/survived"'
    local r = srv:start { yield_ms = 0, command = { "sh", "-c",
      '(WS="$PWD" setsid sh -c \'' .. daemon .. '\' &); ' ..
      'i=0; while [ ! -s "$PWD/daemon.pid" ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done; ' ..
      'echo ready; exec sleep 30' } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local out, deadline = r.output or "", sp.now_ms() + 10000
    while not out:find("ready", 1, true) and sp.now_ms() < deadline do
      out = out .. (srv:continue { session = r.session, yield_ms = 100 }.output or "")
    end
    if not sp.exists(t.ws .. "/daemon.pid") then return "control_failed" end
    local i1 = srv:continue { session = r.session, interrupt = true, yield_ms = 10000 }
    local i2 = srv:continue { session = r.session, yield_ms = 0 }
    sp.sleep_ms(4500) -- past the daemon's 4 s
    local o = i1.outcome or i2.outcome or {}
    t:note("note", string.format("interrupt: exited %s interrupted %s; later: interrupted %s; kind %s; survived %s",
      tostring(i1.exited), tostring(i1.interrupted), tostring(i2.interrupted), tostring(o.kind),
      tostring(sp.exists(t.ws .. "/survived"))))
    if sp.exists(t.ws .. "/survived") then return "survived" end
    if not (i1.exited or i2.exited) then return "not_exited" end
    if not (i1.interrupted and i2.interrupted) then return "not_sticky" end
    if o.kind ~= "cancelled" then return "not_cancelled" end
    return "killed"
  end,
}
