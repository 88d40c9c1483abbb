-- Under network=deny the host's IPv6 loopback (::1) listeners are out of
-- reach too; the sandbox's own ::1 works (positive control, Linux).
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.host_loopback_v6",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a TCP listener on the host's ::1",
  expect = { linux = { "denied" },
             macos = { unsupported = "its positive control is the sandbox's private loopback, which Seatbelt cannot give (net.private_loopback); net.seatbelt_localhost covers the host loopback on macOS" },
             windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { addr = "::1", ctl = "::1" }) end,
}
