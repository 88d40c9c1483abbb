-- Windows: a hard link is a second name of the same file, and an ACL is
-- the file's: a link made into .git\hooks would plant a hook, and a link
-- made in the workspace to an existing hook would let the command rewrite
-- it through a name outside the protected path.  Both are tried; the host
-- snapshots .git\hooks.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.win_hooks_hardlink",
  clauses = { "META-1" },
  claim = "a hard link cannot plant a hook in .git\\hooks nor give a writable name to an existing hook",
  expect = { linux = { unsupported = "windows only: the hard-link case of Windows's ACL model (meta.seatbelt_hardlink_protected and fs tests cover the POSIX forms)" },
             macos = { unsupported = "windows only: the hard-link case of Windows's ACL model (meta.seatbelt_hardlink_protected and fs tests cover the POSIX forms)" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local hooks = t.ws .. "/.git/hooks"
    local sample, bait = hooks .. "/post-checkout", t.ws .. "/bait"
    assert(sp.write(sample, "#!/bin/sh\nexit 0\n"))
    assert(sp.write(bait, "#!/bin/sh\necho pwned\n"))
    local before = lib.snapshot(hooks)
    local r = t:ran(t:sandbox { probe = {
      { "write", t.ws .. "/ok", "ok", as = "control" },
      { "link", bait, hooks .. "/pre-commit", as = "into" },
      { "link", sample, t.ws .. "/alias", as = "alias" },
      { "append", t.ws .. "/alias", "echo pwned\n", as = "through" } } })
    if sp.read(t.ws .. "/ok") ~= "ok" then return "control_failed" end
    local errs = {}
    for _, n in ipairs { "into", "alias", "through" } do
      local q = r.op[n]
      errs[#errs + 1] = n .. "=" .. (not q and "missing" or q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "ops: " .. table.concat(errs, " "))
    local after = lib.snapshot(hooks)
    if after ~= before then
      t:note("note", ".git/hooks changed: " .. lib.snapshot_diff(before, after))
      return "written"
    end
    return "denied"
  end,
}
