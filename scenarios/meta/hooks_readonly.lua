-- The existing .git/hooks of a write root is read-only: a hook cannot be
-- planted, though the rest of the workspace is writable.
return scenario {
  id = "meta.hooks_readonly",
  clauses = { "META-1" },
  claim = "an existing .git/hooks under a write root cannot be written, while the workspace can",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  run = function(t)
    local hook = t.ws .. "/.git/hooks/pre-commit"
    local r = t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "write", hook, "#!/bin/sh\necho pwned\n" },
      },
    }
    t:ran(r)
    -- host-side oracles
    local control = sp.read(t.ws .. "/sibling.txt")
    if control ~= "ok" then
      t:note("note", "positive control failed: the sibling write did not land")
      return "control_failed"
    end
    if sp.exists(hook) then return "written" end
    t:note("note", "hook write errno: " .. tostring(r.probe[2] and r.probe[2].errno))
    return "denied"
  end,
}
