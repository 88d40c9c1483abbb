-- On a case-insensitive workspace (t:casefold_workspace) .ZERO is .zero:
-- a command writing the file .ZERO while .zero is absent must get exactly
-- the treatment of meta.absent_zero_create: stopped, enforcement_denied
-- with a protected_create denial naming .zero, no .zero on the host under
-- any spelling.  The workspace write before it landed (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_zero_create",
  clauses = { "META-3", "META-6" },
  claim = "on a case-insensitive workspace, writing .ZERO is reported as a protected_create of .zero and leaves nothing on the host",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { volume_lost = "fidelity", created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    return lib.casefold_create(t, t.ws .. "/.zero", { { "write", t.ws .. "/.ZERO", "planted\n" } })
  end,
}
