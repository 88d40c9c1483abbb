-- Under network=deny the host's loopback listeners are out of reach; the
-- sandbox's own loopback (positive control, Linux) still works.
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.host_loopback",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener on the host loopback",
  expect = { linux = { "denied" },
             macos = { unsupported = "its positive control is the sandbox's private loopback, which Seatbelt cannot give (net.private_loopback); net.seatbelt_localhost covers the host loopback on macOS" },
             windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { addr = "127.0.0.1" }) end,
}
