-- An absent protected file name stays absent: a command that writes the
-- file .zero is stopped, the outcome is enforcement_denied with a typed
-- protected_create denial naming the path, and the host has no .zero after
-- the run.  The workspace write before it landed (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.absent_zero_create",
  clauses = { "META-3", "OUT-5" },
  claim = "creating an absent .zero file is reported as a protected_create denial and leaves nothing on the host",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local target = t.ws .. "/.zero"
    if sp.exists(target) then t:error(".zero exists before the run") end
    return lib.protected_create(t, target, { { "write", target, "planted\n" } })
  end,
}
