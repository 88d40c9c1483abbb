-- meta.absent_ancestor_chain on a case-insensitive workspace
-- (t:casefold_workspace): with no .git at all, the command makes .Git, and
-- a second later (the monitor has dealt with it by then) .GIT/hooks and
-- .gIT/hooks/pre-commit: every spelling names the same new directory, so
-- this is .git/hooks created under an ancestor made during the run.  It
-- must be stopped, reported as a protected_create of .git/hooks, and leave
-- no hooks directory under any spelling; the ancestor may stay.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_ancestor_chain",
  clauses = { "META-3", "META-6" },
  claim = "on a case-insensitive workspace without .git, building .Git then .GIT/hooks/pre-commit is reported and leaves no hook",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { volume_lost = "fidelity", created = "escape", not_stopped = "reporting", unreported = "reporting", refused = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: the command waits 1 s for the monitor to have dealt with the new .git before it makes .git/hooks; a slower monitor would test an easier case",
  run = function(t)
    local _, vol = t:casefold_workspace()
    local g = t.ws .. "/.git"
    assert(sp.rename(g, vol .. "/git-away"))     -- outside the write root, on the same volume
    local v = lib.casefold_create(t, g .. "/hooks", {
      { "mkdir", t.ws .. "/.Git" },
      { "sleep", 1000 },
      { "mkdir", t.ws .. "/.GIT/hooks" },
      { "write", t.ws .. "/.gIT/hooks/pre-commit", "#!/bin/sh\necho pwned\n" },
    })
    t:note("note", ".git on the host after, as spelled: " .. table.concat(lib.case_spellings(t.ws, ".git"), " "))
    return v
  end,
}
