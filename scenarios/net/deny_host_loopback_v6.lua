-- Under network=deny the host's IPv6 loopback (::1) listeners are out of
-- reach too; the sandbox's own ::1 works (positive control, Linux).
return scenario {
  id = "net.deny.host_loopback_v6",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a TCP listener on the host's ::1",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local lab = t:lab()
    local port, id = lab:listen("tcp", "::1")
    local ctl = port == 47000 and 47001 or 47000
    local r = t:ran(t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "tcp", "::1", ctl },             -- positive control
                { "connect", "tcp", "::1", ctl },
                { "connect", "tcp", "::1", port } },
    })
    local c = r.probe[3]
    if not c then return "error" end
    local hits = lab:hits(id, 1, c.ok and 1000 or 100)
    t:note("note", string.format("connect [::1]:%d ok=%s errno=%s; listener hits=%d",
      port, tostring(c.ok), tostring(c.errno), hits))
    if hits > 0 then return "reached" end
    if not (r.probe[2] and r.probe[2].ok) then
      t:note("note", "positive control failed: the sandbox's own ::1 did not answer")
      return "control_failed"
    end
    return "denied"
  end,
}
