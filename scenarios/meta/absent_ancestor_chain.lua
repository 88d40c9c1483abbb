-- A protected path whose ancestor is absent too: the workspace has no .git
-- at all, and the command builds .git, .git/hooks and a pre-commit hook
-- one step at a time (what `git init` plus a planted hook would do).  The
-- monitor must watch the new .git before scanning it, so the creation of
-- .git/hooks is reported (protected_create naming it) and no hook is left
-- on the host.  The contract leaves created ancestors in place (.git may
-- hold allowed work); only the protected names go.
local function denied_for(o, path)
  for _, d in ipairs(o.denials or {}) do
    if d.kind == "protected_create" and d.path == path then return true end
  end
  return false
end

return scenario {
  id = "meta.absent_ancestor_chain",
  clauses = { "META-3" },
  claim = "with no .git in the workspace, building .git/hooks/pre-commit is reported and leaves no hook on the host",
  expect = { linux = { "reported" }, macos = { "reported" }, windows = { "reported" } },
  run = function(t)
    local g = t.ws .. "/.git"
    assert(sp.rename(g, t.tmp .. "/git-away"))              -- outside the write root
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "mkdir", g },
        { "mkdir", g .. "/hooks" },
        { "write", g .. "/hooks/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "sleep", 2000 },                                  -- room for the runner to stop it
        { "write", t.ws .. "/after.txt", "x" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
    local o = r.outcome
    t:note("note", string.format("kind=%s denials=%s; .git on the host after: %s", tostring(o.kind),
      sp.json_encode(o.denials or {}), tostring(sp.exists(g))))
    if sp.exists(g .. "/hooks") then return "created" end
    if sp.exists(t.ws .. "/after.txt") then return "not_stopped" end
    if o.kind ~= "enforcement_denied" or not denied_for(o, g .. "/hooks") then return "unreported" end
    return "reported"
  end,
}
