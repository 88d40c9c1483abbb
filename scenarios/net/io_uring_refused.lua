-- NET-5 / PRIV-2: io_uring is refused.  It opens sockets and files without
-- socket() or open(), past every per-syscall rule, so io_uring_setup fails
-- with EPERM whatever the network mode.  Positive control in the same
-- probe: a plain socket(AF_INET, SOCK_STREAM) works.  When the runner
-- reports denials, the refusal must be among them (io_uring_setup).
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "net.io_uring_refused",
  clauses = { "NET-5", "PRIV-2", "PRIV-3" },
  claim = "a command cannot set up an io_uring instance (EPERM), even under network=allow",
  expect = { linux = { "refused" },
             macos = { unsupported = "io_uring is Linux only" },
             windows = { "refused" } },
  impact = { set_up = "hardening", ["errno_*"] = "reporting", error = "reporting", unreported = "reporting" },
  control = "net.private_loopback",
  run = function(t)
    t:lab() -- no packet ever leaves the lab
    local r = t:ran(t:sandbox { network = "allow",
                                probe = { { "socket", "inet", "stream", as = "socket" },
                                          { "io_uring", as = "io_uring" } } })
    local s, u = r.op.socket, r.op.io_uring
    if not (s and u) then return "error" end
    t:note("note", string.format("socket ok=%s; io_uring ok=%s errno=%s",
      tostring(s.ok), tostring(u.ok), tostring(u.errno)))
    if u.ok then return "set_up" end
    if not s.ok then
      t:note("note", "positive control failed: a plain inet socket was refused too")
      return "control_failed"
    end
    if u.errno ~= "EPERM" then return "errno_" .. tostring(u.errno) end
    if not reported(r.outcome, "io_uring_setup") then return "unreported" end
    return "refused"
  end,
}
