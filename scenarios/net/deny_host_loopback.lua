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
    local ctl = port == 47000 and 47001 or 47000
    local r = t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "tcp", "127.0.0.1", ctl },       -- positive control
                { "connect", "tcp", "127.0.0.1", ctl },
                { "connect", "tcp", "127.0.0.1", port } },
    }
    t:ran(r)
    local c = r.probe[3]
    if not c then return "error" end
    -- the oracle is the listener's, not the client's word (an accept may
    -- trail the client's connect: wait longer when the client saw success)
    local hits = lab:hits(id, 1, c.ok and 1000 or 100)
    t:note("note", string.format("connect ok=%s errno=%s; listener hits=%d",
      tostring(c.ok), tostring(c.errno), hits))
    if hits > 0 then return "reached" end
    if not (r.probe[2] and r.probe[2].ok) then
      t:note("note", "positive control failed: the sandbox's own loopback did not answer")
      return "control_failed"
    end
    return "denied"
  end,
}
