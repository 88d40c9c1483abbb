-- A read_only_subpath must lie beneath its write root (REQ), by component:
-- /x/proj2 is not beneath /x/proj, so a write root t.ws whose
-- read_only_subpaths names its sibling t.ws .. "2" is refused and the
-- command does not run (host oracle: its marker write does not land).  The
-- same request naming t.ws/proj2 instead, which is beneath, runs (positive
-- control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.ro_subpath_sibling_refused",
  clauses = { "FS-2", "SETUP-1" },
  claim = "a read_only_subpath /x/proj2 given for the write root /x/proj is refused (it is not beneath), and nothing runs",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local sibling, inside = t.ws .. "2", t.ws .. "/proj2"
    assert(sp.mkdir(sibling))
    assert(sp.mkdir(inside))
    local function spec(sub, marker)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { sub } } }
      return { profile = p, probe = { { "write", marker, "ran" } } }
    end
    t:ran(t:sandbox(spec(inside, t.ws .. "/control")))
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    local r = t:sandbox(spec(sibling, t.ws .. "/marker"))
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s stderr=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {}), tostring(o.stderr or ""):sub(1, 300)))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
