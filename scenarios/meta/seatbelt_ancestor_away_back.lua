-- macOS: Seatbelt's path denies hold for the path, not the directory: a
-- command that renames an ancestor of a protected path away, writes
-- beneath it under its new name, and renames it back has planted a file
-- at the protected path unless every ancestor carries a literal
-- unlink/create deny (issue 15's "move-blocking denies").  Here: `mv .git
-- g2; write g2/hooks/pre-commit; mv g2 .git`, and the same one level down
-- with .git/hooks itself.  Host-side oracle: no pre-commit under any
-- name, .git still the repository it was (its config unchanged).  The
-- workspace write in the same run is the positive control.  Fails against:
-- a profile without the ancestors' literal denies; the unconfined control.
local sp = require "sp"

return scenario {
  id = "meta.seatbelt_ancestor_away_back",
  clauses = { "META-1", "META-2", "META-3" },
  claim = "renaming .git (or .git/hooks) away, writing a hook under the new name and renaming it back plants nothing",
  expect = { linux = { unsupported = "macos only: Seatbelt denies by path; Linux pins every ancestor with a mount (meta.ancestor_rename)" },
             macos = { "blocked" },
             windows = { unsupported = "macos only: Seatbelt's path denies" } },
  impact = { planted = "escape", moved = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local g, g2 = t.ws .. "/.git", t.ws .. "/g2"
    local hooks, h2 = g .. "/hooks", g .. "/h2"
    local hook = "#!/bin/sh\necho pwned\n"
    local cfg = assert(sp.read(g .. "/config"))
    local r = t:ran(t:sandbox { probe = {
      { "write", t.ws .. "/ok", "ok", as = "control" },
      { "rename", g, g2, as = "git_away" },
      { "write", g2 .. "/hooks/pre-commit", hook, as = "git_write" },
      { "rename", g2, g, as = "git_back" },
      { "rename", hooks, h2, as = "hooks_away" },
      { "write", h2 .. "/pre-commit", hook, as = "hooks_write" },
      { "rename", h2, hooks, as = "hooks_back" },
    } })
    local errs = {}
    for _, p in ipairs(r.probe) do errs[#errs + 1] = p.op .. "=" .. (p.ok and "ok" or tostring(p.errno)) end
    t:note("note", "in the sandbox: " .. table.concat(errs, " ") ..
      "; denials " .. sp.json_encode(r.outcome.denials or {}))
    for _, f in ipairs { hooks .. "/pre-commit", g2 .. "/hooks/pre-commit", h2 .. "/pre-commit" } do
      if sp.exists(f) then return "planted" end
    end
    if sp.exists(g2) or sp.exists(h2) or not sp.exists(hooks) or sp.read(g .. "/config") ~= cfg then
      return "moved"
    end
    if sp.read(t.ws .. "/ok") ~= "ok" then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "blocked"
  end,
}
