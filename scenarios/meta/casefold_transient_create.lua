-- meta.transient_create on a case-insensitive workspace
-- (t:casefold_workspace): .ZERO written and unlinked at once is still the
-- creation of .zero; the runner must decide by the name in each event as
-- the volume matches names, not by looking the object up.  Each attempt
-- must end enforcement_denied with a protected_create denial for .zero and
-- no .zero on the host under any spelling; at least one attempt must hit
-- the window where the unlink completed before the runner stopped the
-- command (a marker written after it landed; stated minimum power 1).
-- A round is one attempt per spelling of .zero other than .zero (15);
-- a round that hits no window is followed by another, at most ROUNDS
-- (one round hit 0 of 10 in about one run of three: through FUSE the
-- monitor often stops the command before the unlink lands).  Each attempt
-- of a round spells the name anew, and a round starts at least 1.2 s after
-- the last: through FUSE the kernel keeps a spelling it has seen for a
-- second after the object went away under another spelling, and a create
-- under that one fails (ENOENT) - an attempt that would have attacked
-- nothing (one that does is an error).
local SPELLINGS = {}
for bits = 1, 15 do -- every mix of case of z, e, r, o but the lower one
  local s = "."
  for k, ch in ipairs { "z", "e", "r", "o" } do
    s = s .. ((bits >> (k - 1)) & 1 == 1 and ch:upper() or ch)
  end
  SPELLINGS[#SPELLINGS + 1] = s
end
local ROUNDS = 3

local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_transient_create",
  clauses = { "META-3", "META-6" },
  claim = "on a case-insensitive workspace, .ZERO created and unlinked at once is reported as a protected_create of .zero",
  expect = { linux = { "reported" },
             macos = { unsupported = "checks that the Linux monitor catches a create-then-unlink; Seatbelt refuses the create in place (meta.casefold_zero_create on macOS)" },
             windows = { "reported" } },
  impact = { volume_lost = "fidelity", left_on_host = "escape", unreported = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: a window is an unlink that completes before the runner stops the command, a race between two processes that other pairs' load would tilt",
  run = function(t)
    t:casefold_workspace()
    local target = t.ws .. "/.zero"
    local windows, unreported, attempts = 0, 0, 0
    for i = 1, ROUNDS * #SPELLINGS do
      if i > 1 and (i - 1) % #SPELLINGS == 0 then
        if windows > 0 then break end
        sp.sleep_ms(1200) -- the spellings of the last round forgotten
      end
      attempts = i
      local name = SPELLINGS[(i - 1) % #SPELLINGS + 1]
      local marker, spelled = t.ws .. "/unlinked-" .. i, t.ws .. "/" .. name
      local r = t:ran(t:sandbox {
        probe = {
          { "write", t.ws .. "/sibling.txt", "ok" },        -- positive control
          { "write", spelled, "x", as = "create" },
          { "unlink", spelled },
          { "write", marker, "x" },
        },
      })
      if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return lib.casefold_control(t) end
      local c = r.op.create
      if c and not c.ok and not lib.refused_in_place({ c }) then
        t:error(string.format("attempt %d: the write of %s failed (%s): nothing was attempted",
          i, name, tostring(c.errno)))
      end
      sp.unlink(t.ws .. "/sibling.txt")
      if sp.exists(target) or #lib.case_spellings(t.ws, ".zero") > 0 then return "left_on_host" end
      local hit = sp.exists(marker)
      if hit then windows = windows + 1 end
      if not (r.outcome.kind == "enforcement_denied" and lib.denied_for(r.outcome, target)) then
        unreported = unreported + 1
        t:note("note", string.format("attempt %d (unlink completed: %s) unreported: kind=%s denials=%s",
          i, tostring(hit), tostring(r.outcome.kind), sp.json_encode(r.outcome.denials or {})))
      end
    end
    t:set_power { attempts = attempts, windows = windows, min = 1 }
    t:note("note", string.format("%d attempts, unlink completed before the stop in %d, unreported %d",
      attempts, windows, unreported))
    return unreported == 0 and "reported" or "unreported"
  end,
}
