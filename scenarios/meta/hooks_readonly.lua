-- The existing .git/hooks of a write root is read-only: a hook cannot be
-- planted, an existing sample hook cannot be rewritten or removed, and the
-- hooks directory cannot be renamed away, though the rest of the
-- workspace is writable (positive control).  The oracle is the host.
return scenario {
  id = "meta.hooks_readonly",
  clauses = { "META-1" },
  claim = "an existing .git/hooks under a write root cannot be written, while the workspace can",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local hooks = t.ws .. "/.git/hooks"
    local hook = hooks .. "/pre-commit"
    -- a hook file that exists before the run (git init may not provide one)
    local sample = hooks .. "/post-checkout"
    assert(sp.write(sample, "#!/bin/sh\nexit 0\n", 493))
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "write", hook, "#!/bin/sh\necho pwned\n", as = "plant" },
        { "append", sample, "echo pwned\n", as = "append" },
        { "unlink", sample, as = "unlink" },
        { "rename", hooks, t.ws .. "/.git/hooks-away", as = "rename" },
      },
    })
    -- host-side oracles
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then
      t:note("note", "positive control failed: the sibling write did not land")
      return "control_failed"
    end
    local errs = {}
    for _, op in ipairs { "plant", "append", "unlink", "rename" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.op .. "=" .. (q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.exists(hook) or sp.read(sample) ~= "#!/bin/sh\nexit 0\n" or
       sp.exists(t.ws .. "/.git/hooks-away") then
      return "written"
    end
    return "denied"
  end,
}
