-- Renaming a prepared directory into an absent protected name is a
-- protected create like any other: `mkdir staging && write staging/x &&
-- mv staging .agents` is reported, and neither .agents nor what was moved
-- into it is left on the host.  The workspace write before it landed
-- (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.rename_into_place",
  clauses = { "META-3" },
  claim = "a directory renamed into an absent protected name is reported and does not stay on the host",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local staging, target = t.ws .. "/staging", t.ws .. "/.agents"
    return lib.protected_create(t, target, {
      { "mkdir", staging },
      { "write", staging .. "/AGENTS.md", "planted\n" },
      { "rename", staging, target },
    })
  end,
}
