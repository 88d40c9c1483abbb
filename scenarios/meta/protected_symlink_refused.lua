-- A protected path that passes through a symlink is refused at setup: the
-- workspace's .git is a link to the real repository directory (beside the
-- workspace), so protecting ".git/hooks" by following it would let the
-- workspace choose which host object is protected.  The runner refuses and
-- the command does not run (host oracle: its marker does not land).  The
-- same workspace with a real .git runs (positive control).
return scenario {
  id = "meta.protected_symlink_refused",
  clauses = { "META-5", "SETUP-1" },
  claim = "a protected path that is or passes through a symlink is refused and the command does not run",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local g = t.ws .. "/.git"
    t:ran(t:sandbox { probe = { { "write", t.ws .. "/control", "ran" } } })
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    assert(sp.rename(g, t.tmp .. "/real-git"))
    assert(sp.symlink(t.tmp .. "/real-git", g))
    local r = t:sandbox { probe = { { "write", t.ws .. "/marker", "ran" } } }
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {})))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
