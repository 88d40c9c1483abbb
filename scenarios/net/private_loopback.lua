-- The sandbox's own loopback: on Linux it has its own network namespace
-- with loopback up, so a listener it starts itself is reachable; on macOS
-- Seatbelt has no namespace and the contract denies it.
return scenario {
  id = "net.private_loopback",
  clauses = { "NET-2" },
  claim = "under network=deny the sandbox can reach a listener it started on its own loopback",
  expect = { linux = { "works" }, macos = { "denied" }, windows = { "denied" } },
  impact = { denied = "fidelity", error = "fidelity" },
  -- a capability, not a confinement claim: the unconfined control has it too
  unconfined_passes = true,
  run = function(t)
    t:lab() -- never let a network scenario touch the host's namespaces
    local port = 40000 + (t.seed % 20000)
    local r = t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "tcp", "127.0.0.1", port },
                { "connect", "tcp", "127.0.0.1", port, as = "connect" } },
    }
    t:ran(r)
    local c = r.op.connect
    if not c then return "error" end
    t:note("note", string.format("connect ok=%s errno=%s", tostring(c.ok), tostring(c.errno)))
    return c.ok and "works" or "denied"
  end,
}
