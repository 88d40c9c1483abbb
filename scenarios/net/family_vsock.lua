-- NET-5: a vsock socket (AF_VSOCK, a route to the hypervisor) is refused with EPERM.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work; when the runner reports
-- denials the refusal must be among them (EPERM alone could be the
-- kernel's).  See sandproof.lib.socket_family_refused.
local lib = require "sandproof.lib"

return scenario {
  id = "net.family_vsock",
  clauses = { "NET-5" },
  claim = "a command cannot open a vsock socket (AF_VSOCK)",
  expect = { linux = { "refused" },
             macos = { unsupported = "the attack and its positive control use Linux's AF_VSOCK" },
             windows = { "refused" } },
  impact = { opened = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "net.private_loopback",
  run = function(t) return lib.socket_family_refused(t, { "socket", "vsock", "stream" }) end,
}
