-- Under network=deny an address held by one of the host's interfaces (the
-- lab's veth end, 192.0.2.1 in TEST-NET-1) is out of reach; the sandbox's
-- own loopback works in the same run (positive control, Linux).
return scenario {
  id = "net.deny.host_interface",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener on a host interface address",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local lab = t:lab()
    local port, id = lab:listen("tcp", "192.0.2.1")
    local ctl = port == 47000 and 47001 or 47000
    local r = t:ran(t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "tcp", "127.0.0.1", ctl },       -- positive control
                { "connect", "tcp", "127.0.0.1", ctl },
                { "connect", "tcp", "192.0.2.1", port } },
    })
    local c = r.probe[3]
    if not c then return "error" end
    local hits = lab:hits(id, 1, c.ok and 1000 or 100)
    t:note("note", string.format("connect 192.0.2.1:%d ok=%s errno=%s; listener hits=%d",
      port, tostring(c.ok), tostring(c.errno), hits))
    if hits > 0 then return "reached" end
    if not (r.probe[2] and r.probe[2].ok) then
      t:note("note", "positive control failed: the sandbox's own loopback did not answer")
      return "control_failed"
    end
    return "denied"
  end,
}
