-- A policy path that is a symlink is refused, never followed: the write
-- root is given as a link to the workspace, and the runner must refuse
-- (ELOOP) instead of making whatever the link points at writable.  The
-- same request naming the real directory runs (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.policy_symlink_refused",
  clauses = { "SWAP-1", "SETUP-1" },
  claim = "a write root given as a symlink is refused and the command does not run",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local link = t.tmp .. "/ws-link"
    assert(sp.symlink(t.ws, link))
    local function spec(root, marker)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = root } }
      return { profile = p, cwd = "/", probe = { { "write", marker, "ran" } } }
    end
    t:ran(t:sandbox(spec(t.ws, t.ws .. "/control")))
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    local r = t:sandbox(spec(link, link .. "/marker"))
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {})))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
