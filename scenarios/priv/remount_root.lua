-- PRIV-2: the command cannot make the read-only root writable again:
-- mount(NULL, "/", NULL, MS_REMOUNT|MS_BIND) fails with EPERM (and, when
-- the runner reports denials, the outcome names mount).  The attack first
-- tries from a user and mount namespace of its own (unshare -rm), where an
-- unconfined process of any user may remount; only when that fails does it
-- try from where it stands.  No host path outside the scenario's temp
-- directory is ever written, so the oracle is the errno and the runner's
-- typed denial; priv.remount_readonly_subpath has the host-side oracle.
-- Positive control: a write in the workspace lands on the host.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.remount_root",
  clauses = { "PRIV-2", "PRIV-3", "FS-1" },
  claim = "the command cannot remount / read-write (EPERM), not even from a namespace of its own",
  expect = { linux = { "refused" },
             macos = { unsupported = "remounting needs the sandbox's own mount namespace (Linux); Seatbelt mounts nothing" },
             windows = { unsupported = "remount is a Linux mount operation, tried first from a namespace made by a POSIX shell running unshare(1), which native Windows lacks" } },
  impact = { remounted = "hardening", ["errno_*"] = "reporting", error = "reporting", unreported = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local ok_file = t.ws .. "/control"
    local ops = string.format("write '%s' x -- remount /", ok_file)
    local r = t:ran(t:sandbox { command = { "sh", "-c",
      'unshare -rm "$0" ' .. ops .. ' 2>/dev/null || exec "$0" ' .. ops, t.paths.probe },
      op_names = { "control", "remount" } })
    local m = r.op.remount
    if not m then return "error" end
    t:note("note", string.format("remount / ok=%s errno=%s", tostring(m.ok), tostring(m.errno)))
    if m.ok then return "remounted" end
    if sp.read(ok_file) ~= "x" then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    if m.errno ~= "EPERM" then return "errno_" .. tostring(m.errno) end
    if not reported(r.outcome, "mount") then return "unreported" end
    return "refused"
  end,
}
