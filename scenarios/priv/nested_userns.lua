-- PRIV-2: the command cannot create a user namespace of its own (where it
-- would hold every capability again and could mount, remount and open
-- raw sockets): unshare(CLONE_NEWUSER) fails with EPERM, and when the
-- runner reports denials the outcome names unshare.  The probe reads its
-- capabilities after the attempt: empty sets are the second piece of
-- evidence.  Positive control: a write in the workspace lands on the host.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.nested_userns",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot create a nested user namespace (EPERM)",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { created = "escape", ["errno_*"] = "reporting", error = "reporting", unreported = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local ok_file = t.ws .. "/control"
    local r = t:ran(t:sandbox { probe = {
      { "write", ok_file, "x" },                                  -- positive control
      { "unshare_user", as = "unshare" },
      { "caps", as = "caps" },
    } })
    local u, c = r.op.unshare, r.op.caps
    if not (u and c) then return "error" end
    t:note("note", string.format("unshare(CLONE_NEWUSER) ok=%s errno=%s; after it eff=%s",
      tostring(u.ok), tostring(u.errno), tostring(c.eff)))
    if u.ok then return "created" end
    if sp.read(ok_file) ~= "x" then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    if u.errno ~= "EPERM" then return "errno_" .. tostring(u.errno) end
    if not reported(r.outcome, "unshare") then return "unreported" end
    return "refused"
  end,
}
