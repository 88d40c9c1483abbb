-- NET-5: a netlink socket of another protocol than NETLINK_ROUTE (NETLINK_AUDIT, 9) is refused with EPERM.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work; when the runner reports
-- denials the refusal must be among them (EPERM alone could be the
-- kernel's).  See sandproof.lib.socket_family_refused.
local lib = require "sandproof.lib"

return scenario {
  id = "net.family_netlink_audit",
  clauses = { "NET-5" },
  claim = "a command cannot open a netlink socket other than NETLINK_ROUTE (NETLINK_AUDIT)",
  expect = { linux = { "refused" },
             macos = { unsupported = "netlink sockets are Linux only" },
             windows = { "refused" } },
  impact = { opened = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "net.private_loopback",
  run = function(t) return lib.socket_family_refused(t, { "socket", "netlink", "raw", "9" }) end,
}
