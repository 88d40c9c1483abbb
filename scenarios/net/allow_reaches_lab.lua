-- The positive control of the network family: with network=allow the
-- command shares the runner's network (here: the lab's), so it reaches a
-- listener on the host loopback and on a host interface address.  Without
-- this, every "denied" above could be a broken lab or probe.
return scenario {
  id = "net.allow_reaches_lab",
  clauses = { "NET-3" },
  claim = "under network=allow a command reaches listeners on the runner's loopback and interface addresses",
  expect = { linux = { "reached" },
             macos = { unsupported = "no network namespace on macOS: the lab's TEST-NET veth cannot be built and traffic must not leave the machine" },
             windows = { "reached" } },
  impact = { not_reached = "fidelity" },
  -- a capability, not a confinement claim: the unconfined control has it too
  unconfined_passes = true,
  run = function(t)
    local lab = t:lab()
    local p1, id1 = lab:listen("tcp", "127.0.0.1")
    local p2, id2 = lab:listen("tcp", "192.0.2.1")
    local r = t:ran(t:sandbox {
      network = "allow",
      probe = { { "connect", "tcp", "127.0.0.1", p1, as = "loopback" },
                { "connect", "tcp", "192.0.2.1", p2, as = "interface" } },
    })
    local h1, h2 = lab:hits(id1, 1, 1000), lab:hits(id2, 1, 1000)
    for i, h in ipairs { h1, h2 } do
      local c = r.op[i == 1 and "loopback" or "interface"] or {}
      t:note("note", string.format("%s ok=%s errno=%s; listener hits=%d",
        i == 1 and "127.0.0.1" or "192.0.2.1", tostring(c.ok), tostring(c.errno), h))
    end
    if h1 > 0 and h2 > 0 then return "reached" end
    return "not_reached"
  end,
}
