-- A create-then-unlink of a protected name is still a violation: the
-- monitor decides by the name in each event, never by looking the object
-- up.  The command writes .zero and unlinks it at once, then writes a
-- marker; a window is an attempt where the marker landed, i.e. the unlink
-- completed before the runner stopped the command, so nothing was left to
-- find by looking.  Every attempt must end enforcement_denied with a
-- protected_create denial for .zero and no .zero on the host; at least one
-- attempt must hit the window (stated minimum power 1 of 4).
local ATTEMPTS = 4

local lib = require "sandproof.lib"

return scenario {
  id = "meta.transient_create",
  clauses = { "META-3" },
  claim = "a protected name created and unlinked at once is still reported as a protected_create denial",
  expect = { linux = { "reported" },
             macos = { unsupported = "checks that the Linux monitor catches a create-then-unlink; Seatbelt refuses the create in place (meta.absent_zero_create on macOS)" },
             windows = { "reported" } },
  impact = { left_on_host = "escape", unreported = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: a window is an unlink that completes before the runner stops the command, a race between two processes that other pairs' load would tilt",
  run = function(t)
    local target = t.ws .. "/.zero"
    local windows, unreported = 0, 0
    for i = 1, ATTEMPTS do
      local marker = t.ws .. "/unlinked-" .. i
      local r = t:ran(t:sandbox {
        probe = {
          { "write", t.ws .. "/sibling.txt", "ok" },        -- positive control
          { "write", target, "x" },
          { "unlink", target },
          { "write", marker, "x" },
        },
      })
      if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
      sp.unlink(t.ws .. "/sibling.txt")
      if sp.exists(target) then return "left_on_host" end
      local hit = sp.exists(marker)
      if hit then windows = windows + 1 end
      if not (r.outcome.kind == "enforcement_denied" and lib.denied_for(r.outcome, target)) then
        unreported = unreported + 1
        t:note("note", string.format("attempt %d (unlink completed: %s) unreported: kind=%s denials=%s",
          i, tostring(hit), tostring(r.outcome.kind), sp.json_encode(r.outcome.denials or {})))
      end
    end
    t:set_power { attempts = ATTEMPTS, windows = windows, min = 1 }
    t:note("note", string.format("%d attempts, unlink completed before the stop in %d, unreported %d",
      ATTEMPTS, windows, unreported))
    return unreported == 0 and "reported" or "unreported"
  end,
}
