-- Under network=deny a datagram to a UDP listener on the host's loopback
-- never arrives; the sandbox's own loopback answers UDP (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.host_loopback_udp",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot send a datagram to a UDP listener on the host loopback",
  expect = { linux = { "denied" },
             macos = { unsupported = "its positive control is the sandbox's private loopback, which Seatbelt cannot give (net.private_loopback); net.seatbelt_localhost covers the host loopback on macOS" },
             windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { proto = "udp", addr = "127.0.0.1" }) end,
}
