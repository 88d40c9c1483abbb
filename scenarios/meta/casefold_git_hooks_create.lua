-- On a case-insensitive workspace (t:casefold_workspace) whose .git has no
-- hooks directory, .Git/hooks is .git/hooks: the existing .git reached
-- under another spelling (the reproduction of issue 31: `mkdir -p
-- .GIT/HOOKS`).  A command making .Git/hooks and a pre-commit hook in it
-- must be stopped, reported as a protected_create of .git/hooks, and leave
-- no hooks directory under any spelling; .git itself stays.  The workspace
-- write before it landed (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_git_hooks_create",
  clauses = { "META-3", "META-6" },
  claim = "on a case-insensitive workspace without .git/hooks, creating .Git/hooks is reported as a protected_create of .git/hooks and leaves no hook",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { volume_lost = "fidelity", created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local hooks = t.ws .. "/.git/hooks"
    assert(sp.rmtree(hooks))
    local spelled = t.ws .. "/.Git/hooks"
    return lib.casefold_create(t, hooks, {
      { "mkdir", spelled },
      { "write", spelled .. "/pre-commit", "#!/bin/sh\necho pwned\n" },
    })
  end,
}
