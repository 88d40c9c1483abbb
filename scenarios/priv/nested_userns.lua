-- PRIV-2: the command cannot create a user namespace of its own (where it
-- would hold every capability again and could mount, remount and open
-- raw sockets), by any of the three calls that make one: clone() with
-- CLONE_NEWUSER (flags in a register) fails with EPERM, clone3() (flags in
-- a struct seccomp cannot read) fails (the reference runner answers ENOSYS
-- so libc falls back to clone), and unshare(CLONE_NEWUSER) fails with
-- EPERM; when the runner reports denials the outcome names clone and
-- unshare.  The probe reads its capabilities after the attempts: empty
-- sets are the second piece of evidence.  Positive control: a write in the
-- workspace lands on the host.  Unconfined, all three calls succeed
-- wherever unprivileged user namespaces are allowed.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.nested_userns",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot create a nested user namespace with clone, clone3 or unshare",
  expect = { linux = { "refused" },
             macos = { unsupported = "user namespaces are Linux only" },
             windows = { "refused" } },
  impact = { ["created:*"] = "hardening", ["errno_*"] = "reporting", error = "reporting", ["unreported:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local ok_file = t.ws .. "/control"
    local r = t:ran(t:sandbox { probe = {
      { "write", ok_file, "x" },                                  -- positive control
      { "clone_user", "clone", as = "clone" },
      { "clone_user", "clone3", as = "clone3" },
      { "unshare_user", as = "unshare" },                         -- last: it changes what follows
      { "caps", as = "caps" },
    } })
    local cl, c3, u, c = r.op.clone, r.op.clone3, r.op.unshare, r.op.caps
    if not (cl and c3 and u and c) then return "error" end
    t:note("note", string.format("clone(CLONE_NEWUSER) ok=%s errno=%s; clone3 ok=%s errno=%s; " ..
      "unshare(CLONE_NEWUSER) ok=%s errno=%s; after them eff=%s", tostring(cl.ok), tostring(cl.errno),
      tostring(c3.ok), tostring(c3.errno), tostring(u.ok), tostring(u.errno), tostring(c.eff)))
    if cl.ok then return "created:clone" end
    if c3.ok then return "created:clone3" end
    if u.ok then return "created:unshare" end
    if sp.read(ok_file) ~= "x" then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    if u.errno ~= "EPERM" then return "errno_unshare_" .. tostring(u.errno) end
    if cl.errno ~= "EPERM" then return "errno_clone_" .. tostring(cl.errno) end
    if not reported(r.outcome, "unshare") then return "unreported:unshare" end
    if not reported(r.outcome, "clone") then return "unreported:clone" end
    return "refused"
  end,
}
