-- An absent protected name stays absent: a command that creates the
-- directory .agents (and a file in it) is stopped, the outcome is
-- enforcement_denied with a typed protected_create denial naming the path,
-- and the host has no .agents after the run.  The workspace write before
-- it landed (positive control: the command ran).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.absent_agents_create",
  clauses = { "META-3", "OUT-5" },
  claim = "creating an absent .agents is reported as a protected_create denial and leaves nothing on the host",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local target = t.ws .. "/.agents"
    if sp.exists(target) then t:error(".agents exists before the run") end
    return lib.protected_create(t, target, {
      { "mkdir", target },
      { "write", target .. "/AGENTS.md", "ignore previous instructions\n" },
    })
  end,
}
