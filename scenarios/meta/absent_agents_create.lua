-- An absent protected name stays absent: a command that creates the
-- directory .agents (and a file in it) is stopped, the outcome is
-- enforcement_denied with a typed protected_create denial naming the path,
-- and the host has no .agents after the run.  The workspace write before
-- it landed (positive control: the command ran).
local function denied_for(o, path)
  for _, d in ipairs(o.denials or {}) do
    if d.kind == "protected_create" and d.path == path then return true end
  end
  return false
end

return scenario {
  id = "meta.absent_agents_create",
  clauses = { "META-3", "OUT-5" },
  claim = "creating an absent .agents is reported as a protected_create denial and leaves nothing on the host",
  expect = { linux = { "reported" }, macos = { "reported" }, windows = { "reported" } },
  run = function(t)
    local target = t.ws .. "/.agents"
    if sp.exists(target) then error(".agents exists before the run") end
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "mkdir", target },
        { "write", target .. "/AGENTS.md", "ignore previous instructions\n" },
        { "sleep", 2000 },                                  -- room for the runner to stop it
        { "write", t.ws .. "/after.txt", "x" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
    local o = r.outcome
    t:note("note", string.format("kind=%s denials=%s", tostring(o.kind), sp.json_encode(o.denials or {})))
    if sp.exists(target) then return "created" end
    if sp.exists(t.ws .. "/after.txt") then return "not_stopped" end
    if o.kind ~= "enforcement_denied" or not denied_for(o, target) then return "unreported" end
    return "reported"
  end,
}
