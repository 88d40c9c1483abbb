-- NET-5: a raw IP socket (AF_INET, SOCK_RAW) is refused with EPERM, whatever the network mode.
-- AF_INET itself is a permitted family, so the refusal is the kernel's
-- capability check (CAP_NET_RAW, gone by PRIV-1), not a seccomp rule: no
-- syscall denial is expected in the outcome.  To keep that honest the
-- attack tries to regain CAP_NET_RAW through a namespace of its own first.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work.
local lib = require "sandproof.lib"

return scenario {
  id = "net.family_raw",
  clauses = { "NET-5", "PRIV-1" },
  claim = "a command cannot open a raw IP socket (AF_INET, SOCK_RAW), even through a user namespace of its own",
  expect = { linux = { "refused" },
             macos = { unsupported = "the attack first tries to regain CAP_NET_RAW in a user namespace: Linux capabilities and namespaces" },
             windows = { "refused" } },
  impact = { opened = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "net.private_loopback",
  run = function(t)
    return lib.socket_family_refused(t, { "socket", "raw" }, { via_userns = true, kernel_refusal = true })
  end,
}
