-- meta.hooks_readonly on a case-insensitive workspace
-- (t:casefold_workspace): the existing .git/hooks is read-only under every
-- spelling.  A hook planted as .GIT/HOOKS/pre-commit, an existing sample
-- appended to as .Git/Hooks/post-checkout, unlinked as
-- .git/HOOKS/post-checkout, and the directory renamed away as .GIT/hooks
-- must all fail, while the workspace is writable (positive control).  The
-- oracle is the host: the hooks directory's listing and contents are
-- unchanged and nothing was renamed away.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.casefold_hooks_readonly",
  clauses = { "META-1", "META-6" },
  claim = "on a case-insensitive workspace, .git/hooks cannot be written under another spelling (.GIT/HOOKS), while the workspace can",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { volume_lost = "fidelity", written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local hooks = t.ws .. "/.git/hooks"
    local sample = hooks .. "/post-checkout"
    assert(sp.write(sample, "#!/bin/sh\nexit 0\n"))
    local before = lib.snapshot(hooks)
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "write", t.ws .. "/.GIT/HOOKS/pre-commit", "#!/bin/sh\necho pwned\n", as = "plant" },
        { "append", t.ws .. "/.Git/Hooks/post-checkout", "echo pwned\n", as = "append" },
        { "unlink", t.ws .. "/.git/HOOKS/post-checkout", as = "unlink" },
        { "rename", t.ws .. "/.GIT/hooks", t.ws .. "/.git/hooks-away", as = "rename" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then
      t:note("note", "positive control failed: the sibling write did not land")
      return lib.casefold_control(t)
    end
    local errs = {}
    for _, op in ipairs { "plant", "append", "unlink", "rename" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.op .. "=" .. (q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    local after = lib.snapshot(hooks)
    if after ~= before or #lib.case_spellings(t.ws .. "/.git", "hooks-away") > 0 then
      t:note("note", ".git/hooks changed: " .. lib.snapshot_diff(before, after))
      return "written"
    end
    return "denied"
  end,
}
