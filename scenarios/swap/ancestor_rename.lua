-- Ancestor rename: the command renames .git away, makes a new .git and
-- plants .git/hooks/pre-commit in it (`mv .git x && mkdir -p .git/hooks &&
-- write .git/hooks/pre-commit`); then the same one level down with
-- .git/hooks itself.  Git would run such a hook on the host.  Every
-- existing directory between the write root and a protected path is
-- pinned (META-2), so the renames fail; the host oracle is the workspace's
-- .git (unchanged, still the same directory) and no x/ beside it.

-- Host oracle: one line per entry under dir (path, type, a file's content);
-- symlinks are listed, never followed.  Equal snapshots: nothing changed.
local function snapshot(dir)
  local out = {}
  local function walk(rel)
    local p = rel == "" and dir or dir .. "/" .. rel
    local st = sp.lstat(p)
    if not st then out[#out + 1] = rel .. " absent" return end
    if st.type == "dir" then
      out[#out + 1] = rel .. "/"
      local names = sp.listdir(p) or {}
      table.sort(names)
      for _, n in ipairs(names) do walk(rel == "" and n or rel .. "/" .. n) end
    else
      out[#out + 1] = rel .. " " .. st.type .. " " .. (tostring(sp.read(p)):gsub("\n", "\\n"))
    end
  end
  walk("")
  return table.concat(out, "\n")
end

-- The lines of after that are not in before (what appeared or changed).
local function diff(before, after)
  local seen, d = {}, {}
  for l in before:gmatch("[^\n]+") do seen[l] = true end
  for l in after:gmatch("[^\n]+") do
    if not seen[l] then d[#d + 1] = l:sub(1, 120) end
  end
  return #d > 0 and table.concat(d, "; ") or "(entries removed)"
end

return scenario {
  id = "swap.ancestor_rename",
  clauses = { "META-2", "META-1", "META-3" },
  claim = "renaming .git (or .git/hooks) away and recreating it never plants a hook: the workspace's .git stays the same directory, unchanged",
  expect = { linux = { "denied" }, macos = { "denied" }, windows = { "denied" } },
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
