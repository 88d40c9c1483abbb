-- Under network=deny name resolution fails fast instead of hanging: a DNS
-- query (UDP and TCP port 53) to a resolver address that does not exist in
-- the sandbox (192.0.2.53, TEST-NET-1, held by nobody) fails at once with
-- a routing error, well under 2 s.  Never a real resolver.  The sandbox's
-- own loopback answers UDP in the same run (positive control).
return scenario {
  id = "net.deny.dns_fast",
  clauses = { "NET-1" },
  claim = "under network=deny a DNS query to a resolver outside the sandbox fails in under 2 s, without a timeout",
  expect = { linux = { "fast" },
             macos = { unsupported = "no network namespace on macOS: a query to a TEST-NET resolver could leave the machine" },
             windows = { "fast" } },
  impact = { answered = "escape", error = "reporting", hung = "fidelity" },
  control = "net.private_loopback",
  exclusive = "a time bound: the refused DNS query must fail well under 2 s, measured in wall time that other pairs would stretch",
  run = function(t)
    t:lab() -- no packet ever leaves the lab
    local t0 = sp.now_ms()
    local r = t:ran(t:sandbox {
      network = "deny",
      probe = { { "listen_echo", "udp", "127.0.0.1", 47053 },     -- positive control
                { "connect", "udp", "127.0.0.1", 47053, as = "control" },
                { "connect", "udp", "192.0.2.53", 53, as = "udp" },
                { "connect", "tcp", "192.0.2.53", 53, as = "tcp" } },
    })
    local ms = sp.now_ms() - t0
    local u, c = r.op.udp, r.op.tcp
    if not (u and c) then return "error" end
    t:note("note", string.format("udp errno=%s step=%s; tcp errno=%s step=%s; whole run %.0f ms",
      tostring(u.errno), tostring(u.step), tostring(c.errno), tostring(c.step), ms))
    if u.ok or c.ok then return "answered" end
    if not (r.op.control and r.op.control.ok) then
      t:note("note", "positive control failed: no UDP echo from the sandbox's own loopback")
      return "control_failed"
    end
    -- ETIMEDOUT is the probe giving up (500 ms UDP, 2 s TCP): a hang
    if u.errno == "ETIMEDOUT" or c.errno == "ETIMEDOUT" or ms >= 2000 then return "hung" end
    return "fast"
  end,
}
