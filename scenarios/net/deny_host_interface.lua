-- Under network=deny an address held by one of the host's interfaces (the
-- lab's veth end, 192.0.2.1 in TEST-NET-1) is out of reach; the sandbox's
-- own loopback works in the same run (positive control, Linux).
local lib = require "sandproof.lib"

return scenario {
  id = "net.deny.host_interface",
  clauses = { "NET-1" },
  claim = "under network=deny a command cannot reach a listener on a host interface address",
  expect = { linux = { "denied" },
             macos = { unsupported = "its address is the lab's TEST-NET veth end (a network namespace); net.seatbelt_localhost tries the host's own interface address on macOS" },
             windows = { "denied" } },
  impact = { reached = "escape" },
  control = "net.private_loopback",
  run = function(t) return lib.deny_unreachable(t, { addr = "192.0.2.1" }) end,
}
