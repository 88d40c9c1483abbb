-- block_unix_sockets: the same filesystem unix socket served outside the
-- sandbox that a plain run reaches (positive control, first run) is out of
-- reach once the flag is set, and socket(AF_UNIX) fails with EPERM.
return scenario {
  id = "net.block_unix_sockets",
  clauses = { "NET-4" },
  claim = "with block_unix_sockets a command cannot connect to a unix socket served outside the sandbox (EPERM)",
  expect = { linux = { "blocked" }, macos = { "blocked" }, windows = { "blocked" } },
  impact = { reached = "escape", ["errno_*"] = "reporting", error = "reporting" },
  control = "net.unix_socket_reachable",
  run = function(t)
    local lab = t:lab()
    local path = t.ws .. "/agent.sock"
    local id = lab:listen_unix { path = path }
    -- positive control: without the flag the listener is reached
    local r0 = t:ran(t:sandbox { network = "deny", block_unix_sockets = false,
                                 probe = { { "unix_connect", path, as = "connect" } } })
    local before = lab:hits(id, 1, 1000)
    if before < 1 then
      t:note("note", "positive control failed: the socket was not reached without the flag (" ..
        tostring(r0.op.connect and r0.op.connect.errno) .. ")")
      return "control_failed"
    end
    local r = t:ran(t:sandbox { network = "deny", block_unix_sockets = true,
                                probe = { { "unix_connect", path, as = "connect" } } })
    local c = r.op.connect
    if not c then return "error" end
    local after = lab:hits(id, before + 1, c.ok and 1000 or 100)
    t:note("note", string.format("with the flag: unix_connect ok=%s errno=%s step=%s; hits %d -> %d",
      tostring(c.ok), tostring(c.errno), tostring(c.step), before, after))
    if after > before then return "reached" end
    if c.errno ~= "EPERM" then return "errno_" .. tostring(c.errno) end
    return "blocked"
  end,
}
