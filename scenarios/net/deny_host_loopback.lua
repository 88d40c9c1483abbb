-- Under network=deny the host's loopback listeners are out of reach; the
-- sandbox's own loopback (positive control, Linux) still works.
return scenario {
  id = "net.deny.host_loopback",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener on the host loopback",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local lab = t:lab()
    local port, id = lab:listen("tcp", "127.0.0.1")
    local r = t:sandbox {
      network = "deny",
      probe = { { "connect", "tcp", "127.0.0.1", port } },
    }
    t:ran(r)
    local c = r.probe[1]
    local hits = lab:hits(id)
    t:note("note", string.format("connect ok=%s errno=%s; listener hits=%d",
      tostring(c.ok), tostring(c.errno), hits))
    -- the oracle is the listener's, not the client's word
    if hits > 0 then return "reached" end
    return "denied"
  end,
}
