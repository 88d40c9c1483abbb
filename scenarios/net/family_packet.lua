-- NET-5: a packet socket (AF_PACKET) is refused with EPERM, whatever the network mode,
-- even when the attack first tries from a user and network namespace of its own.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work.  When the runner reports
-- denials (enforcement.denials_reported) the refusal must be among them,
-- named "socket": EPERM alone could be the kernel's, not the sandbox's.
local lib = require "sandproof.lib"

return scenario {
  id = "net.family_packet",
  clauses = { "NET-5" },
  claim = "a command cannot open a packet socket (AF_PACKET), even through a user namespace of its own",
  expect = { linux = { "refused" },
             macos = { unsupported = "AF_PACKET is Linux only" },
             windows = { "refused" } },
  impact = { opened = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "net.private_loopback",
  run = function(t)
    return lib.socket_family_refused(t, { "socket", "packet", "dgram" }, { via_userns = true })
  end,
}
