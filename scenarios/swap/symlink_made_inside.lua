-- Symlink escape made by the command: it creates symlinks in the workspace
-- to a directory and a file outside the policy and to the protected
-- .git/hooks, writes through them, and swaps a workspace directory with one
-- of its links (rename_exchange) before writing into it.  The oracle is the
-- host: t.outside and .git/hooks exactly as they were.

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
  id = "swap.symlink_made_inside",
  clauses = { "FS-1", "META-1", "SWAP-3" },
  claim = "symlinks the command makes in the workspace (to outside, to .git/hooks, swapped in for a directory) never carry a write outside the policy",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  run = function(t)
    local ws, hooks = t.ws, t.ws .. "/.git/hooks"
    local out_before, hooks_before = snapshot(t.outside), snapshot(hooks)
    local r = t:ran(t:sandbox { probe = {
      { "write", ws .. "/ok", "ok" },                           -- positive control
      { "symlink", t.outside, ws .. "/sl" },
      { "write", ws .. "/sl/f", "x" },
      { "symlink", t.outside .. "/victim", ws .. "/sv" },
      { "append", ws .. "/sv", "pwned\n" },
      { "symlink", hooks, ws .. "/hk" },
      { "write", ws .. "/hk/pre-commit", "#!/bin/sh\necho pwned\n" },
      { "mkdir", ws .. "/d" },
      { "symlink", t.outside, ws .. "/l2" },
      { "rename_exchange", ws .. "/d", ws .. "/l2" },
      { "write", ws .. "/d/f", "x" },
      { "append", ws .. "/d/victim", "pwned\n" },
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", table.concat(e, ", "))
    if sp.read(ws .. "/ok") ~= "ok" then return "control_failed" end
    -- the links themselves are the command's to make: they must exist
    local sl = sp.lstat(ws .. "/sl")
    if not (sl and sl.type == "link") then
      t:note("note", "control: the command could not make a symlink in the workspace")
      return "control_failed"
    end
    local now = snapshot(t.outside)
    if now ~= out_before then
      t:note("note", "outside changed: " .. diff(out_before, now))
      return "escaped"
    end
    now = snapshot(hooks)
    if now ~= hooks_before then
      t:note("note", "hooks changed: " .. diff(hooks_before, now))
      return "escaped"
    end
    return "confined"
  end,
}
