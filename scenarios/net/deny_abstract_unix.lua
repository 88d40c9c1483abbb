-- Under network=deny an abstract unix socket served outside the sandbox is
-- out of reach (abstract names belong to a network namespace, and with
-- Landlock ABI >= 6 the runner scopes them too).  Positive control in the
-- same scenario: under network=allow the same listener is reached.
return scenario {
  id = "net.deny.abstract_unix",
  clauses = { "NET-4", "NET-1" },
  claim = "under network=deny a command cannot connect to an abstract unix socket served outside the sandbox",
  expect = { linux = { "denied" },
             macos = { unsupported = "abstract unix sockets are Linux only" },
             windows = { "denied" } },
  impact = { reached = "escape", error = "reporting" },
  control = "net.unix_socket_reachable",
  run = function(t)
    local lab = t:lab()
    local name = string.format("sandproof-abs-%d-%d", sp.getpid(), t.seed)
    local id = lab:listen_unix { abstract = name }
    local r0 = t:ran(t:sandbox { network = "allow",
                                 probe = { { "abstract_unix_connect", name, as = "connect" } } })
    local before = lab:hits(id, 1, 1000)
    if before < 1 then
      t:note("note", "positive control failed: network=allow did not reach the abstract socket (" ..
        tostring(r0.op.connect and r0.op.connect.errno) .. ")")
      return "control_failed"
    end
    local r = t:ran(t:sandbox { network = "deny",
                                probe = { { "abstract_unix_connect", name, as = "connect" } } })
    local c = r.op.connect
    if not c then return "error" end
    local after = lab:hits(id, before + 1, c.ok and 1000 or 100)
    t:note("note", string.format("network=deny: abstract_unix_connect ok=%s errno=%s; hits %d -> %d",
      tostring(c.ok), tostring(c.errno), before, after))
    return after > before and "reached" or "denied"
  end,
}
