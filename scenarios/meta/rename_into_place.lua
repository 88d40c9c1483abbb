-- Renaming a prepared directory into an absent protected name is a
-- protected create like any other: `mkdir staging && write staging/x &&
-- mv staging .agents` is reported, and neither .agents nor what was moved
-- into it is left on the host.  The workspace write before it landed
-- (positive control).
local function denied_for(o, path)
  for _, d in ipairs(o.denials or {}) do
    if d.kind == "protected_create" and d.path == path then return true end
  end
  return false
end

return scenario {
  id = "meta.rename_into_place",
  clauses = { "META-3" },
  claim = "a directory renamed into an absent protected name is reported and does not stay on the host",
  expect = { linux = { "reported" }, macos = { "reported" }, windows = { "reported" } },
  run = function(t)
    local staging, target = t.ws .. "/staging", t.ws .. "/.agents"
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "mkdir", staging },
        { "write", staging .. "/AGENTS.md", "planted\n" },
        { "rename", staging, target },
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
