-- A read_only_subpath that does not exist inside a write root is refused:
-- the command could create it and so choose what it is.  The same request
-- naming an existing subpath runs (positive control); the refused one must
-- not run at all (host oracle: its marker write does not land).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.ro_subpath_absent_refused",
  clauses = { "FS-2", "SETUP-1" },
  claim = "a read_only_subpath absent from its write root is refused and the command does not run",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local present, absent = t.ws .. "/vendor", t.ws .. "/generated"
    assert(sp.mkdir(present))
    local function spec(sub, marker)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { sub } } }
      return { profile = p, probe = { { "write", marker, "ran" } } }
    end
    local r0 = t:ran(t:sandbox(spec(present, t.ws .. "/control")))
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    local r = t:sandbox(spec(absent, t.ws .. "/marker"))
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {})))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
