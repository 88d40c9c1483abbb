-- Under network=deny a routed address is out of reach: the lab's far side
-- holds 203.0.113.1, reachable from the host only through a route via a
-- second namespace.  The sandbox's own loopback works (positive control).
return scenario {
  id = "net.deny.routed",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener behind a route (203.0.113.1 via the lab's far side)",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local lab = t:lab { routed = true }
    local port, id = lab:listen("tcp", "203.0.113.1")
    local ctl = port == 47000 and 47001 or 47000
    local r = t:ran(t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "tcp", "127.0.0.1", ctl },       -- positive control
                { "connect", "tcp", "127.0.0.1", ctl },
                { "connect", "tcp", "203.0.113.1", port } },
    })
    local c = r.probe[3]
    if not c then return "error" end
    local hits = lab:hits(id, 1, c.ok and 1000 or 100)
    t:note("note", string.format("connect 203.0.113.1:%d ok=%s errno=%s; far-side listener hits=%d",
      port, tostring(c.ok), tostring(c.errno), hits))
    if hits > 0 then return "reached" end
    if not (r.probe[2] and r.probe[2].ok) then
      t:note("note", "positive control failed: the sandbox's own loopback did not answer")
      return "control_failed"
    end
    return "denied"
  end,
}
