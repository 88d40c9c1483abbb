-- macOS: Seatbelt judges a write by the path it is made through, and a hard
-- link gives a protected file a second path.  A command that hard-links
-- .git/config to a name of its own in the workspace and writes through that
-- name changes the protected file (a core.hooksPath there makes git run
-- any script); one that hard-links a file of its own to
-- .git/hooks/pre-commit or to the absent .agents plants it.  Both must
-- fail.  Host-side oracle: .git/config unchanged, no pre-commit, no
-- .agents.  The workspace write in the same run is the positive control.
-- Fails against: a profile that denies file-write* on the protected paths
-- but lets file-link through and a write land on the alias; the
-- unconfined control.
local sp = require "sp"

return scenario {
  id = "meta.seatbelt_hardlink_protected",
  clauses = { "META-1", "META-3" },
  claim = "a hard link neither gives a protected file a writable second name nor plants one at a protected path",
  expect = { linux = { unsupported = "macos only: Seatbelt judges the path written through; Linux binds protected paths read-only (swap.hardlink_made_inside)" },
             macos = { "blocked" },
             windows = { unsupported = "macos only: Seatbelt's path denies and hard links" } },
  impact = { config_changed = "escape", hook_planted = "escape", agents_planted = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local cfg_path, alias = t.ws .. "/.git/config", t.ws .. "/cfg-alias"
    local hook, agents, mine = t.ws .. "/.git/hooks/pre-commit", t.ws .. "/.agents", t.ws .. "/mine"
    local cfg = assert(sp.read(cfg_path))
    if sp.exists(agents) then t:error(".agents exists before the run") end
    local r = t:ran(t:sandbox { probe = {
      { "write", mine, "#!/bin/sh\necho pwned\n", as = "control" },
      { "link", cfg_path, alias, as = "link_config" },
      { "append", alias, "[core]\n\thooksPath = /tmp\n", as = "write_alias" },
      { "link", mine, hook, as = "link_hook" },
      { "link", mine, agents, as = "link_agents" },
    } })
    local errs = {}
    for _, p in ipairs(r.probe) do errs[#errs + 1] = p.op .. "=" .. (p.ok and "ok" or tostring(p.errno)) end
    t:note("note", "in the sandbox: " .. table.concat(errs, " ") ..
      "; denials " .. sp.json_encode(r.outcome.denials or {}))
    if sp.read(cfg_path) ~= cfg then return "config_changed" end
    if sp.exists(hook) then return "hook_planted" end
    if sp.exists(agents) then return "agents_planted" end
    if not (sp.read(mine) or ""):match("pwned") then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "blocked"
  end,
}
