-- Only read_roots ["/"] is supported: any other read-root set would
-- promise a read confinement the mount layer does not give, so it is
-- refused (sandbox_setup_failure, EOPNOTSUPP) and nothing runs.  The same
-- request with read_roots ["/"] runs (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.read_roots_refused",
  clauses = { "FS-1", "SETUP-1" },
  claim = "read_roots other than [\"/\"] are refused and the command does not run",
  expect = { linux = { "refused" },
             macos = { unsupported = "Seatbelt confines reads per read_roots, so macOS takes them (the refusal is the Linux mount layer's); a macOS read-root scenario is still to write" },
             windows = { "refused" } },
  impact = { ran = "hardening", ["not_run:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local function spec(roots, marker)
      local p = t.profiles.workspace_write()
      p.filesystem.read_roots = array(roots)
      return { profile = p, probe = { { "write", marker, "ran" } } }
    end
    t:ran(t:sandbox(spec({ "/" }, t.ws .. "/control")))
    if sp.read(t.ws .. "/control") ~= "ran" then return "control_failed" end
    local r = t:sandbox(spec({ t.ws, "/usr" }, t.ws .. "/marker"))
    local o = r.outcome
    t:note("note", string.format("kind=%s setup_error=%s", tostring(o.kind),
      sp.json_encode(o.setup_error or {})))
    if sp.exists(t.ws .. "/marker") or r.sentinel then return "ran" end
    if o.kind == "sandbox_setup_failure" or o.kind == "request_refused" then return "refused" end
    return "not_run:" .. tostring(o.kind)
  end,
}
