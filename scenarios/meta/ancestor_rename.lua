-- Renaming an ancestor of a protected path away does not get around it:
-- `mv .git x && mkdir .git && write .git/hooks/pre-commit` fails, because
-- every existing directory between the write root and a protected path is
-- pinned (a mount point: rename gives EBUSY).  The host's .git stays the
-- repository it was, and no hook appears under either name.
return scenario {
  id = "meta.ancestor_rename",
  clauses = { "META-2", "META-1" },
  claim = "mv .git x && mkdir .git && write .git/hooks/pre-commit cannot plant a hook",
  expect = { linux = { "blocked" }, macos = { "blocked" }, windows = { "blocked" } },
  impact = { bypassed = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local g, x = t.ws .. "/.git", t.ws .. "/x"
    local cfg = assert(sp.read(g .. "/config"))
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok", as = "control" },  -- positive control
        { "rename", g, x },
        { "mkdir", g },
        { "mkdir", g .. "/hooks" },
        { "write", g .. "/hooks/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "rename", g .. "/hooks", g .. "/hooks-away" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, q in ipairs(r.probe) do
      if q ~= r.op.control then errs[#errs + 1] = q.op .. "=" .. (q.ok and "ok" or tostring(q.errno)) end
    end
    t:note("note", "errnos: " .. table.concat(errs, " ") ..
      string.format("; denials %s", sp.json_encode(r.outcome.denials or {})))
    if sp.exists(x) or sp.exists(g .. "/hooks/pre-commit") or sp.exists(x .. "/hooks/pre-commit") or
       sp.exists(g .. "/hooks-away") or sp.read(g .. "/config") ~= cfg then
      return "bypassed"
    end
    return "blocked"
  end,
}
