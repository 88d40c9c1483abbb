-- deny_read and deny_write paths outside every write root that do not
-- exist are ignored: the run goes ahead (nothing could be created there
-- anyway, / being read-only).  A capability claim: the command runs and
-- its workspace write lands.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.absent_deny_paths_ignored",
  clauses = { "FS-2", "FS-3" },
  claim = "absent deny_read and deny_write paths outside the write roots do not stop the run",
  expect = { linux = { "ran" }, macos = { "ran" }, windows = { "ran" } },
  impact = { created = "fidelity", not_run = "fidelity", ["not_run:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local u = string.format("sandproof-absent-%d-%d", sp.getpid(), t.seed)
    -- in the visible temp root as this OS spells it canonically (Linux
    -- /var/tmp, macOS /private/var/tmp: a deny on /var/... is refused there)
    local vt = sp.temp_roots[2]
    local dr, dw = vt .. "/" .. u .. "-read", vt .. "/" .. u .. "-write"
    if sp.exists(dr) or sp.exists(dw) then t:error("the absent paths exist on the host") end
    local p = t.profiles.workspace_write()
    p.filesystem.deny_read = array { dr }
    p.filesystem.deny_write = array { dw }
    local r = t:sandbox { profile = p, probe = { { "write", t.ws .. "/marker", "ran" } } }
    t:note("note", string.format("kind=%s setup_error=%s", tostring(r.outcome.kind),
      sp.json_encode(r.outcome.setup_error or {})))
    if sp.exists(dr) or sp.exists(dw) then return "created" end
    -- a refusal is this claim failing, not a harness error: no t:ran here,
    -- but only a run whose sentinel was seen can pass
    if not r.sentinel then return "not_run:" .. tostring(r.outcome.kind) end
    return sp.read(t.ws .. "/marker") == "ran" and "ran" or "not_run"
  end,
}
