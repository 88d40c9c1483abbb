-- Symlink escape from inside the workspace: symlinks already in the
-- workspace when the run starts (as a cloned repository may hold) point at
-- a directory and a file outside the policy; the command writes through
-- them.  A write follows the link in the sandbox's own view, so it must
-- meet nothing writable there.  The oracle is the host: t.outside exactly
-- as it was.

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
  id = "swap.symlink_in_workspace",
  clauses = { "FS-1", "SWAP-3" },
  claim = "symlinks in the workspace pointing outside (to a directory and to a file) never carry a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  run = function(t)
    assert(sp.symlink(t.outside, t.ws .. "/out"))
    assert(sp.symlink(t.outside .. "/victim", t.ws .. "/victim_link"))
    assert(sp.symlink(t.tmp, t.ws .. "/up"))
    local before = snapshot(t.outside)
    local r = t:ran(t:sandbox { probe = {
      { "write", t.ws .. "/ok", "ok" },                         -- positive control
      { "write", t.ws .. "/out/f", "x" },
      { "mkdir", t.ws .. "/out/d" },
      { "append", t.ws .. "/victim_link", "pwned\n" },
      { "write", t.ws .. "/victim_link", "pwned\n" },
      { "write", t.ws .. "/up/outside/g", "x" },
      { "rename", t.ws .. "/out/victim", t.ws .. "/stolen" },
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", table.concat(e, ", "))
    if sp.read(t.ws .. "/ok") ~= "ok" then return "control_failed" end
    local now = snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. diff(before, now))
      return "escaped"
    end
    return "confined"
  end,
}
