-- macOS: Seatbelt matches canonical paths only (/tmp is /private/tmp), so
-- a policy path spelled through /tmp matches nothing: a write root given
-- as /tmp/... whose protected names are denied under that spelling would
-- leave .git/hooks writable, and a deny_write spelled /tmp/... would deny
-- nothing.  Such a path must be refused (as a policy path through a
-- symlink is) or canonicalised, never silently unprotected.  Two runs:
--   1. the write root spelled through /tmp: refused, or the workspace
--      write lands and .git/hooks/pre-commit does not;
--   2. the canonical write root with two deny_write files, one spelled
--      canonically and one through /tmp: refused, or neither changes.
-- Elsewhere the other spelling is a symlink of the scenario's own to its
-- temp directory (the same attack on any OS).  Host-side oracle: the files
-- themselves.  Fails against: a generator that emits the paths as given;
-- the unconfined control (hook planted, denies ignored).
local sp = require "sp"
local lib = require "sandproof.lib"
local array = lib.array

-- The workspace's other spelling: through /tmp on macOS (t.ws is
-- canonical, /private/tmp/...), else through a link of our own.
local function other_spelling(t, path)
  local via = path:match("^/private(/tmp/.*)$")
  if via then return via end
  local link = t.tmp .. "/alias" -- removed with t.tmp (rmtree never follows it)
  if not sp.exists(link) then
    local ok, err = sp.symlink(t.tmp, link)
    if not ok then t:error("cannot make the alias link: " .. tostring(err)) end
  end
  return link .. path:sub(#t.tmp + 1)
end

local function refused(r) return r.outcome.kind == "sandbox_setup_failure" or r.outcome.kind == "request_refused" end

-- Run 1: the write root itself spelled the other way.
local function root_spelled(t)
  local ws2 = other_spelling(t, t.ws)
  local p = t.profiles.workspace_write()
  p.filesystem.write_roots = array { { root = ws2 } }
  local hook = t.ws .. "/.git/hooks/pre-commit"
  local r = t:sandbox { profile = p, probe = {
    { "write", ws2 .. "/ok", "ok", as = "control" },
    { "write", ws2 .. "/.git/hooks/pre-commit", "#!/bin/sh\necho pwned\n", as = "hook" } } }
  t:note("note", string.format("write root %s: kind=%s hook=%s", ws2, tostring(r.outcome.kind),
    sp.exists(hook) and "PLANTED" or "absent"))
  if sp.exists(hook) then return "hook_planted" end
  if refused(r) then return "refused" end
  t:ran(r)
  if sp.read(t.ws .. "/ok") ~= "ok" then return "write_root_dead" end
  return "canonicalised"
end

-- Run 2: deny_write beneath the write root, spelled both ways.
local function denies_spelled(t)
  local canon, other = t.ws .. "/deny-canon", t.ws .. "/deny-other"
  for _, f in ipairs { canon, other } do assert(sp.write(f, "untouched\n")) end
  local p = t.profiles.workspace_write()
  p.filesystem.deny_write = array { canon, other_spelling(t, other) }
  local r = t:sandbox { profile = p, probe = {
    { "write", t.ws .. "/ok2", "ok", as = "control" },
    { "write", canon, "changed\n" }, { "write", other, "changed\n" } } }
  local bad = {}
  for _, f in ipairs { canon, other } do
    if sp.read(f) ~= "untouched\n" then bad[#bad + 1] = f:match("[^/]+$") end
  end
  t:note("note", string.format("deny_write both spellings: kind=%s changed=%s", tostring(r.outcome.kind),
    #bad > 0 and table.concat(bad, ",") or "none"))
  if #bad > 0 then return "deny_ignored:" .. table.concat(bad, ",") end
  if refused(r) then return "refused" end
  t:ran(r)
  if sp.read(t.ws .. "/ok2") ~= "ok" then return "control_failed" end
  return "canonicalised"
end

return scenario {
  id = "fs.seatbelt_tmp_spelling",
  clauses = { "FS-2", "META-1", "META-5" },
  claim = "a write root or deny_write spelled through /tmp (a symlink) is refused or canonicalised, never silently unprotected",
  expect = { linux = { unsupported = "macos only: Seatbelt matches canonical paths; Linux resolves a mount's path itself (fs.policy_symlink_refused)" },
             macos = { "protected" },
             windows = { unsupported = "macos only: Seatbelt's canonical-path matching" } },
  impact = { hook_planted = "escape", ["deny_ignored:*"] = "escape", write_root_dead = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    local one = root_spelled(t)
    if one ~= "refused" and one ~= "canonicalised" then return one end
    local two = denies_spelled(t)
    if two ~= "refused" and two ~= "canonicalised" then return two end
    return "protected"
  end,
}
