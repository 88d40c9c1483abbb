-- Under network=deny a routed address is out of reach: the lab's far side
-- holds 203.0.113.1, reachable from the host only through a route via a
-- second namespace.  The sandbox's own loopback works (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.routed",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener behind a route (203.0.113.1 via the lab's far side)",
  expect = { linux = { "denied" },
             macos = { unsupported = "no network namespace on macOS: a routed TEST-NET far side needs veth pairs, and traffic must not leave the machine" },
             windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { lab = { routed = true }, addr = "203.0.113.1" }) end,
}
