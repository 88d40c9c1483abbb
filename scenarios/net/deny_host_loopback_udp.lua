-- Under network=deny a datagram to a UDP listener on the host's loopback
-- never arrives; the sandbox's own loopback answers UDP (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.host_loopback_udp",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot send a datagram to a UDP listener on the host loopback",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { proto = "udp", addr = "127.0.0.1" }) end,
}
