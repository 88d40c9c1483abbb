-- A read_only_subpath that is a symlink (inside the write root, pointing
-- at a directory beside it) is refused, never followed: following it would
-- protect the link's target today and nothing once the link is changed.
-- The same request naming the real directory runs (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.ro_subpath_symlink_refused",
  clauses = { "SWAP-1", "FS-2", "SETUP-1" },
  claim = "a read_only_subpath given as a symlink is refused and the command does not run",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local dir, link = t.ws .. "/vendor", t.ws .. "/vendor-link"
    assert(sp.mkdir(dir))
    assert(sp.symlink("vendor", link))
    local function spec(sub, marker)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { sub } } }
      return { profile = p, probe = { { "write", marker, "ran" } } }
    end
    t:ran(t:sandbox(spec(dir, t.ws .. "/control")))
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    local r = t:sandbox(spec(link, t.ws .. "/marker"))
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {})))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
