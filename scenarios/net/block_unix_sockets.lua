-- block_unix_sockets: the same filesystem unix socket served outside the
-- sandbox that a plain run reaches (positive control, first run) is out of
-- reach once the flag is set, and socket(AF_UNIX) fails with EPERM; so
-- does socketpair(AF_UNIX), which the plain run makes (its control).
return scenario {
  id = "net.block_unix_sockets",
  clauses = { "NET-4" },
  claim = "with block_unix_sockets a command cannot connect to a unix socket served outside the sandbox (EPERM)",
  expect = { linux = { "blocked" }, macos = { "blocked" }, windows = { "blocked" } },
  impact = { reached = "escape", socketpair_made = "hardening", ["errno_*"] = "reporting", error = "reporting" },
  control = "net.unix_socket_reachable",
  run = function(t)
    local lab = t:lab()
    local path = t.ws .. "/agent.sock"
    local id = lab:listen_unix { path = path }
    -- positive control: without the flag the listener is reached
    local r0 = t:ran(t:sandbox { network = "deny", block_unix_sockets = false,
                                 probe = { { "unix_connect", path, as = "connect" },
                                           { "socketpair", "unix", "stream", as = "pair" } } })
    local before = lab:hits(id, 1, 1000)
    if before < 1 then
      t:note("note", "positive control failed: the socket was not reached without the flag (" ..
        tostring(r0.op.connect and r0.op.connect.errno) .. ")")
      return "control_failed"
    end
    if not (r0.op.pair and r0.op.pair.ok) then
      t:note("note", "positive control failed: socketpair(AF_UNIX) failed without the flag (" ..
        tostring(r0.op.pair and r0.op.pair.errno) .. ")")
      return "control_failed"
    end
    local r = t:ran(t:sandbox { network = "deny", block_unix_sockets = true,
                                probe = { { "unix_connect", path, as = "connect" },
                                          { "socketpair", "unix", "stream", as = "pair" } } })
    local c, pair = r.op.connect, r.op.pair
    if not (c and pair) then return "error" end
    local after = lab:hits(id, before + 1, c.ok and 1000 or 100)
    t:note("note", string.format("with the flag: unix_connect ok=%s errno=%s step=%s; hits %d -> %d",
      tostring(c.ok), tostring(c.errno), tostring(c.step), before, after))
    t:note("note", string.format("with the flag: socketpair(AF_UNIX) ok=%s errno=%s", tostring(pair.ok),
      tostring(pair.errno)))
    if after > before then return "reached" end
    if pair.ok then return "socketpair_made" end
    if c.errno ~= "EPERM" then return "errno_" .. tostring(c.errno) end
    if pair.errno ~= "EPERM" then return "errno_socketpair_" .. tostring(pair.errno) end
    return "blocked"
  end,
}
