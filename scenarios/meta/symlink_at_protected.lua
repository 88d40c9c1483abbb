-- A symlink created at an absent protected name, pointing outside the
-- policy (here .agents -> the sibling directory holding `victim`), is a
-- protected create: it is reported, the link is removed from the host
-- without being followed, and its target is intact (same files, same
-- content).  The workspace write before it landed (positive control).
local function listing(dir)
  local names = assert(sp.listdir(dir))
  table.sort(names)
  return table.concat(names, "/")
end

local lib = require "sandproof.lib"

return scenario {
  id = "meta.symlink_at_protected",
  clauses = { "META-3" },
  claim = "a symlink planted at an absent protected name is reported and removed, and its target is left intact",
  expect = { linux = { "reported" }, macos = { "reported", "refused" }, windows = { "reported" } },
  impact = { target_changed = "escape", not_stopped = "reporting", unreported = "reporting", link_left = "residue",
             refused = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local link = t.ws .. "/.agents"
    assert(sp.write(t.outside .. "/keep", "keep\n"))
    local before = listing(t.outside)
    local r = t:ran(t:sandbox {
      probe = {
        { "write", t.ws .. "/sibling.txt", "ok" },          -- positive control
        { "symlink", t.outside, link, as = "plant" },
        { "sleep", 2000 },                                  -- room for the runner to stop it
        { "write", link .. "/planted", "x" },
        { "write", t.ws .. "/after.txt", "x" },
      },
    })
    if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
    local o = r.outcome
    t:note("note", string.format("kind=%s denials=%s; outside now: %s", tostring(o.kind),
      sp.json_encode(o.denials or {}), listing(t.outside)))
    if sp.read(t.outside .. "/victim") ~= "untouched\n" or sp.read(t.outside .. "/keep") ~= "keep\n" or
       listing(t.outside) ~= before then
      return "target_changed"
    end
    if sp.exists(link) then return "link_left" end
    -- not stopped: right only where the symlink was refused in place (macOS)
    if sp.exists(t.ws .. "/after.txt") then
      return lib.refused_in_place { r.op.plant } and "refused" or "not_stopped"
    end
    if o.kind ~= "enforcement_denied" or not lib.denied_for(o, link) then return "unreported" end
    return "reported"
  end,
}
