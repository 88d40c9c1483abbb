-- "Inside a write root" is a component boundary, not a string prefix.  An
-- absent deny_write or deny_read path inside a write root is refused (it
-- could be created), one outside is ignored (FS-2, FS-3); t.ws .. "2" is a
-- sibling of the write root t.ws, outside it, so absent paths beneath it
-- must not stop the run.  The command runs (its workspace write lands) and
-- still cannot create the absent path (host oracle: it stays absent).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.absent_deny_sibling_ignored",
  clauses = { "FS-2", "FS-3" },
  claim = "absent deny_write and deny_read paths under /x/proj2 are outside the write root /x/proj: the run goes ahead, confined",
  expect = { linux = { "ran" }, macos = { "ran" }, windows = { "ran" } },
  impact = { created = "fidelity", not_run = "fidelity", ["not_run:*"] = "fidelity" },
  run = function(t)
    local sibling = t.ws .. "2"
    assert(sp.mkdir(sibling))
    local dw, dr = sibling .. "/absent-write", sibling .. "/absent-read"
    local p = t.profiles.workspace_write()
    p.filesystem.deny_write = array { dw }
    p.filesystem.deny_read = array { dr }
    local r = t:sandbox { profile = p, probe = { { "write", t.ws .. "/marker", "ran" }, { "write", dw, "x" } } }
    t:note("note", string.format("kind=%s setup_error=%s", tostring(r.outcome.kind),
      sp.json_encode(r.outcome.setup_error or {})))
    if sp.exists(dw) or sp.exists(dr) then return "created" end
    -- a refusal is this claim failing, not a harness error: no t:ran here,
    -- but only a run whose sentinel was seen can pass
    if not r.sentinel then return "not_run:" .. tostring(r.outcome.kind) end
    return sp.read(t.ws .. "/marker") == "ran" and "ran" or "not_run"
  end,
}
