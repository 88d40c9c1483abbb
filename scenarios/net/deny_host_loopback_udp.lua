-- Under network=deny a datagram to a UDP listener on the host's loopback
-- never arrives; the sandbox's own loopback answers UDP (positive control).
return scenario {
  id = "net.deny.host_loopback_udp",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot send a datagram to a UDP listener on the host loopback",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local lab = t:lab()
    local port, id = lab:listen("udp", "127.0.0.1")
    local ctl = port == 47000 and 47001 or 47000
    local r = t:ran(t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "udp", "127.0.0.1", ctl },       -- positive control
                { "connect", "udp", "127.0.0.1", ctl },
                { "connect", "udp", "127.0.0.1", port } },
    })
    local c = r.probe[3]
    if not c then return "error" end
    -- datagrams are counted by the listener: that count is the oracle
    local hits = lab:hits(id, 1, c.ok and 1000 or 200)
    t:note("note", string.format("udp connect ok=%s errno=%s step=%s; listener datagrams=%d",
      tostring(c.ok), tostring(c.errno), tostring(c.step), hits))
    if hits > 0 then return "reached" end
    if not (r.probe[2] and r.probe[2].ok) then
      t:note("note", "positive control failed: no UDP echo from the sandbox's own loopback")
      return "control_failed"
    end
    return "denied"
  end,
}
