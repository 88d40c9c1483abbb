-- A protected path whose ancestor is absent too: the workspace has no .git
-- at all, and the command builds .git, .git/hooks and a pre-commit hook
-- one step at a time (what `git init` plus a planted hook would do), .git
-- a second before the rest, so the monitor has dealt with .git (scanned
-- it, found it empty) before .git/hooks exists.  The monitor must watch the
-- new .git, not only scan it, so the creation of .git/hooks is reported
-- (protected_create naming it) while the command runs, the run is stopped,
-- and no hook is left on the host.  The contract leaves created ancestors
-- in place (.git may hold allowed work); only the protected names go.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.absent_ancestor_chain",
  clauses = { "META-3" },
  claim = "with no .git in the workspace, building .git/hooks/pre-commit is reported and leaves no hook on the host",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: the command waits 1 s for the monitor to have dealt with the new .git before it makes .git/hooks; a slower monitor would test an easier case",
  run = function(t)
    local g = t.ws .. "/.git"
    assert(sp.rename(g, t.tmp .. "/git-away"))              -- outside the write root
    local v = lib.protected_create(t, g .. "/hooks", {
      { "mkdir", g },
      { "sleep", 1000 },                                         -- the monitor has seen .git by now
      { "mkdir", g .. "/hooks" },
      { "write", g .. "/hooks/pre-commit", "#!/bin/sh\necho pwned\n" },
    })
    t:note("note", ".git on the host after: " .. tostring(sp.exists(g)))
    return v
  end,
}
