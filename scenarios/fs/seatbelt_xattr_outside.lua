-- macOS: Seatbelt tells file-write-xattr apart from file-write-data, so a
-- profile that denies writes outside the write roots by data alone would
-- let a command strip com.apple.quarantine from a file outside (Gatekeeper
-- then runs a downloaded program unchecked) or tag files outside.  The
-- harness quarantines a file outside every write root but visible to the
-- sandbox (t.visible_outside/victim); the command tries to remove that
-- attribute and to set one of its own there.  Host-side oracle: the
-- probe's xattr_get on the host afterwards: quarantine as it was, no new
-- attribute.  Positive control: the same xattr_set on a workspace file
-- (a write root) works, in the same run.
-- Decided: stripping quarantine inside a write root is not a finding: the
-- contract lets the command change anything beneath its write roots, and
-- Gatekeeper's attribute on a file the agent itself fetched is no
-- protected metadata of docs/CONTRACT.md; only outside them is it a write
-- that must fail (FS-1).  Fails against: a profile denying only
-- file-write-data outside; the unconfined control.  Off macOS the probe
-- answers unsupported_op: unsupported.
local sp = require "sp"

local Q = "com.apple.quarantine"
local QVAL = "0081;5f5e1000;sandproof;"

-- The probe's results, run on the host (no sandbox): { [i] = result }.
local function host_probe(t, args)
  local r = sp.spawn { argv = args, timeout_ms = 10000 } or {}
  local out = {}
  for line in (r.stdout or ""):gmatch("[^\n]+") do
    local j = line:sub(1, 1) == "{" and sp.json_decode(line)
    if j and j.op then
      if j.unsupported then
        t:unsupported("unsupported on " .. tostring(t.os) .. ": the probe's " .. j.op .. " is macOS only")
      end
      out[j.i + 1] = j
    end
  end
  return out
end

return scenario {
  id = "fs.seatbelt_xattr_outside",
  clauses = { "FS-1" },
  claim = "outside the write roots the command can neither remove com.apple.quarantine nor set an extended attribute",
  expect = { linux = { unsupported = "macos only: Seatbelt's file-write-xattr; Linux's read-only mounts refuse every write (fs.outside_system)" },
             macos = { "refused" },
             windows = { unsupported = "macos only: Seatbelt's file-write-xattr" } },
  impact = { stripped = "escape", tagged = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    if not t.visible_outside then t:skip("/var/tmp is unusable: no visible outside file") end
    local victim, p = t.visible_outside .. "/victim", t.paths.probe
    local set = host_probe(t, { p, "xattr_set", victim, Q, QVAL })
    if not (set[1] and set[1].ok) then
      t:skip("the host cannot quarantine a file here: " .. tostring(set[1] and set[1].errno))
    end
    local r = t:ran(t:sandbox { probe = {
      { "xattr_set", t.ws .. "/README", "com.apple.sandproof", "x", as = "control" },
      { "xattr_remove", victim, Q, as = "strip" },
      { "xattr_set", victim, "com.apple.sandproof", "x", as = "tag" } } })
    local after = host_probe(t, { p, "xattr_get", victim, Q, "--", "xattr_get", victim, "com.apple.sandproof" })
    local q, tag = after[1], after[2]
    t:note("note", string.format("in the sandbox: strip=%s tag=%s; on the host after: quarantine=%s tag=%s",
      r.op.strip and (r.op.strip.ok and "ok" or tostring(r.op.strip.errno)) or "-",
      r.op.tag and (r.op.tag.ok and "ok" or tostring(r.op.tag.errno)) or "-",
      q and (q.ok and tostring(q.value) or tostring(q.errno)) or "-",
      tag and (tag.ok and "PRESENT" or tostring(tag.errno)) or "-"))
    if not (q and q.ok and q.value == QVAL) then return "stripped" end
    if tag and tag.ok then return "tagged" end
    if not (r.op.control and r.op.control.ok) then
      t:note("note", "positive control failed: an attribute on a workspace file was refused")
      return "control_failed"
    end
    return "refused"
  end,
}
