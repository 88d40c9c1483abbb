-- Without block_unix_sockets, a filesystem unix socket served by a process
-- outside the sandbox stays reachable, under network=deny too: the network
-- namespace does not cover path-named sockets, and the contract keeps them
-- usable (agents talk to local daemons this way) unless the flag is set.
return scenario {
  id = "net.unix_socket_reachable",
  clauses = { "NET-4" },
  claim = "without block_unix_sockets a command can connect to a filesystem unix socket served outside the sandbox",
  expect = { linux = { "reached" }, macos = { "reached" }, windows = { "reached" } },
  impact = { not_reached = "fidelity" },
  -- a capability, not a confinement claim: the unconfined control has it too
  unconfined_passes = true,
  run = function(t)
    local lab = t:lab()
    -- in the workspace (under t.tmp) so the sandbox can see the path at all
    local path = t.ws .. "/agent.sock"
    local id = lab:listen_unix { path = path }
    local r = t:ran(t:sandbox { network = "deny", block_unix_sockets = false,
                                probe = { { "unix_connect", path, as = "connect" } } })
    local c = r.op.connect or {}
    local hits = lab:hits(id, 1, c.ok and 1000 or 100)
    t:note("note", string.format("unix_connect ok=%s errno=%s step=%s; listener hits=%d",
      tostring(c.ok), tostring(c.errno), tostring(c.step), hits))
    return hits > 0 and "reached" or "not_reached"
  end,
}
