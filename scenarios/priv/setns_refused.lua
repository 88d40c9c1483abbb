-- PRIV-2/PRIV-3: the command cannot join a namespace with setns(2): the
-- call fails with EPERM and, when the runner reports denials, the outcome
-- names setns.  The attack first makes a user and mount namespace of its
-- own (unshare -rm), where any unconfined user holds CAP_SYS_ADMIN over
-- that mount namespace and may setns into it; only when that fails does it try
-- from where it stands.  Opening the namespace file succeeding (the step
-- of the failure is setns, not open) and a workspace write landing on the
-- host are the positive controls.
local lib = require "sandproof.lib"

return scenario {
  id = "priv.setns_refused",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot join a namespace with setns (EPERM, reported as a setns denial), not even from a user namespace of its own",
  expect = { linux = { "refused" },
             macos = { unsupported = "setns and /proc/PID/ns are Linux only" },
             windows = { unsupported = "setns and /proc/PID/ns are Linux only, and the attack is a POSIX shell running unshare(1), which native Windows lacks" } },
  impact = { joined = "hardening", ["errno_*"] = "reporting", unreported = "reporting", error = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local ok_file = t.ws .. "/control"
    local ops = string.format("write '%s' x -- setns /proc/self/ns/mnt", ok_file)
    local r = t:ran(t:sandbox { command = { "sh", "-c",
      'unshare -rm "$0" ' .. ops .. ' 2>/dev/null || exec "$0" ' .. ops, t.paths.probe },
      op_names = { "control", "setns" } })
    local s = r.op.setns
    if not s then return "error" end
    t:note("note", string.format("setns ok=%s errno=%s step=%s", tostring(s.ok), tostring(s.errno),
      tostring(s.step)))
    if s.ok then return "joined" end
    if sp.read(ok_file) ~= "x" or s.step ~= "setns" then
      t:note("note", "positive control failed: the workspace write did not land or the namespace file did not open")
      return "control_failed"
    end
    if s.errno ~= "EPERM" then return "errno_" .. tostring(s.errno) end
    if not lib.denial_reported(r.outcome, "setns") then return "unreported" end
    return "refused"
  end,
}
