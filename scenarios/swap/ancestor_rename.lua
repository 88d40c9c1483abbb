-- Ancestor rename: the command renames .git away, makes a new .git and
-- plants .git/hooks/pre-commit in it (`mv .git x && mkdir -p .git/hooks &&
-- write .git/hooks/pre-commit`); then the same one level down with
-- .git/hooks itself.  Git would run such a hook on the host.  Every
-- existing directory between the write root and a protected path is
-- pinned (META-2), so the renames fail; the host oracle is the workspace's
-- .git (unchanged, still the same directory) and no x/ beside it.
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.ancestor_rename",
  clauses = { "META-2", "META-1", "META-3" },
  claim = "renaming .git (or .git/hooks) away and recreating it never plants a hook: the workspace's .git stays the same directory, unchanged",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
  impact = { planted = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ws, hook = t.ws, "#!/bin/sh\necho pwned\n"
    local git_st = assert(sp.lstat(ws .. "/.git"))
    local git_before = snapshot(ws .. "/.git")
    local r = t:ran(t:sandbox { probe = {
      { "write", ws .. "/ok", "ok" },                           -- positive control
      { "rename", ws .. "/.git", ws .. "/x" },
      { "mkdir", ws .. "/.git" },
      { "mkdir", ws .. "/.git/hooks" },
      { "write", ws .. "/.git/hooks/pre-commit", hook },
      { "rename", ws .. "/.git/hooks", ws .. "/.git/hooks_old" },
      { "mkdir", ws .. "/.git/hooks" },
      { "write", ws .. "/.git/hooks/pre-commit", hook },
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", "outcome " .. tostring(r.outcome.kind) .. ": " .. table.concat(e, ", "))
    if sp.read(ws .. "/ok") ~= "ok" then return "control_failed" end
    local st = sp.lstat(ws .. "/.git")
    local now = snapshot(ws .. "/.git")
    if not st or st.ino ~= git_st.ino or st.dev ~= git_st.dev then
      t:note("note", "the workspace's .git is another object now")
      return "planted"
    end
    if now ~= git_before then
      t:note("note", ".git changed: " .. diff(git_before, now))
      return "planted"
    end
    if sp.exists(ws .. "/x") then
      t:note("note", ".git was renamed to x: " .. diff("", snapshot(ws .. "/x")))
      return "planted"
    end
    return "denied"
  end,
}
