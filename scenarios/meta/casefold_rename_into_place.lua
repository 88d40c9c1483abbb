-- meta.rename_into_place on a case-insensitive workspace
-- (t:casefold_workspace): `mkdir staging && write staging/AGENTS.md && mv
-- staging .AGENTS` renames into .agents under another spelling.  It must
-- be stopped, reported as a protected_create of .agents, and leave nothing
-- under any spelling.  The workspace write before it landed (positive
-- control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_rename_into_place",
  clauses = { "META-3", "META-6" },
  claim = "on a case-insensitive workspace, a directory renamed to .AGENTS is reported as a protected_create of .agents and does not stay",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { volume_lost = "fidelity", created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local staging = t.ws .. "/staging"
    return lib.casefold_create(t, t.ws .. "/.agents", {
      { "mkdir", staging },
      { "write", staging .. "/AGENTS.md", "planted\n" },
      { "rename", staging, t.ws .. "/.AGENTS" },
    })
  end,
}
