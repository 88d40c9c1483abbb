-- A repository nested in the workspace and listed as a write root of its
-- own gets the protected names of that root: sub/.git/hooks and
-- sub/.git/config are read-only and creating sub/.agents is reported,
-- while both roots stay writable (positive controls in each).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "meta.nested_write_root_protected",
  clauses = { "META-1", "META-3" },
  claim = "a nested repository listed as its own write root has its .git/hooks, .git/config and .agents protected",
  expect = { linux = { "protected" }, macos = { "protected", "refused" }, windows = { "protected" } },
  impact = { created = "escape", written = "escape", not_stopped = "reporting", unreported = "reporting",
             refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local sub = t.ws .. "/sub"
    local cfg = "[core]\n\tbare = false\n"
    assert(sp.mkdir(sub))
    assert(sp.mkdir(sub .. "/.git"))
    assert(sp.mkdir(sub .. "/.git/hooks"))
    assert(sp.write(sub .. "/.git/config", cfg))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws }, { root = sub } }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "write", t.ws .. "/control", "ok" },              -- positive control, outer root
        { "write", sub .. "/control", "ok" },               -- positive control, nested root
        { "write", sub .. "/.git/hooks/pre-commit", "#!/bin/sh\necho pwned\n", as = "hook" },
        { "append", sub .. "/.git/config", "[core]\n\thooksPath = /tmp/pwn\n", as = "config" },
        { "mkdir", sub .. "/.agents", as = "agents" },
        { "sleep", 2000 },                                  -- room for the runner to stop it
        { "write", t.ws .. "/after.txt", "x" },
      },
    })
    if sp.read(t.ws .. "/control") ~= "ok" or sp.read(sub .. "/control") ~= "ok" then
      return "control_failed"
    end
    local o = r.outcome
    local errs = {}
    for _, op in ipairs { "hook", "config" } do
      local q = r.op[op]
      errs[#errs + 1] = not q and "missing" or q.op .. "=" .. (q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", string.format("%s; kind=%s denials=%s", table.concat(errs, " "), tostring(o.kind),
      sp.json_encode(o.denials or {})))
    if sp.exists(sub .. "/.git/hooks/pre-commit") or sp.read(sub .. "/.git/config") ~= cfg then
      return "written"
    end
    if sp.exists(sub .. "/.agents") then return "created" end
    -- not stopped: right only where .agents was refused in place (macOS)
    if sp.exists(t.ws .. "/after.txt") then
      return lib.refused_in_place { r.op.agents } and "refused" or "not_stopped"
    end
    if o.kind ~= "enforcement_denied" or not lib.denied_for(o, sub .. "/.agents") then return "unreported" end
    return "protected"
  end,
}
