-- meta.ancestor_rename on a case-insensitive workspace
-- (t:casefold_workspace): `mv .GIT x && mkdir .git && write
-- .git/hooks/pre-commit` renames the pinned .git under another spelling.
-- It must fail like the rename of .git itself: the host's .git stays the
-- repository it was (its config unchanged), nothing is renamed to x, and no
-- hook appears.  The workspace write before it landed (positive control).
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_ancestor_rename",
  clauses = { "META-2", "META-1", "META-6" },
  claim = "on a case-insensitive workspace, mv .GIT x && mkdir .git && write .git/hooks/pre-commit cannot plant a hook",
  expect = { linux = { "blocked" }, macos = { "blocked" }, windows = { "blocked" } },
  impact = { volume_lost = "fidelity", bypassed = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local g, x = t.ws .. "/.git", t.ws .. "/x"
    local cfg = assert(sp.read(g .. "/config"))
    local hooks = lib.snapshot(g .. "/hooks")
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok", as = "control" },  -- positive control
        { "rename", t.ws .. "/.GIT", x },
        { "mkdir", g },
        { "mkdir", g .. "/hooks" },
        { "write", g .. "/hooks/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "rename", t.ws .. "/.Git/Hooks", g .. "/hooks-away" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return lib.casefold_control(t) end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " ") ..
      string.format("; denials %s", sp.json_encode(r.outcome.denials or {})))
    if #lib.case_spellings(t.ws, "x") > 0 or lib.snapshot(g .. "/hooks") ~= hooks or
       #lib.case_spellings(g, "hooks-away") > 0 or sp.read(g .. "/config") ~= cfg then
      return "bypassed"
    end
    return "blocked"
  end,
}
