-- (c) During the run: from the command's first instruction on, a swapper
-- exchanges the write root with a symlink to a directory outside the policy
-- in a tight loop while the command keeps appending to a file in the write
-- root.  The write root in the sandbox must stay the directory the runner
-- pinned: every append lands in it, none outside.  The swapper is started
-- from a hold on the command's first nanosleep, so the race covers the run
-- itself (setup is covered, deterministically, by swap.write_root_held).
-- The write root has no protected names here, so no monitor stops the run
-- early: the claim is about the mounts alone (SWAP-3).
local function array(t) return setmetatable(t, { __jsonarray = true }) end

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

local WRITES, MIN_EXCHANGES = 60, 1000

return scenario {
  id = "swap.write_root_swapper",
  clauses = { "SWAP-3", "FS-1" },
  claim = "a write root exchanged with a symlink to outside continuously while the command writes never redirects a write outside: every write lands in the pinned directory",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  run = function(t)
    local root, link = t.tmp .. "/root", t.tmp .. "/link"
    assert(sp.mkdir(root))
    assert(sp.symlink(t.outside, link))
    local before = snapshot(t.outside)
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = root, protected_metadata_names = array {} } }
    local ops = { { "sleep", 1 } }            -- the swapper starts here
    for _ = 1, WRITES do
      ops[#ops + 1] = { "append", root .. "/f", "x" }
      ops[#ops + 1] = { "sleep", 2 }
    end
    local s
    local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1,
                       sandbox = { profile = p, cwd = "/", probe = ops },
                       action = function() s = t:swapper(root, link) end }
    local exchanges = s and s:stop() or 0     -- restores root as the directory
    t:ran(r)
    local ok_writes = 0
    for _, x in ipairs(r.probe) do
      if x.op == "append" and x.ok then ok_writes = ok_writes + 1 end
    end
    local landed = #(sp.read(root .. "/f") or "")
    t:set_power { attempts = 1, windows = exchanges, min = MIN_EXCHANGES }
    t:note("note", string.format("%d exchanges during the run; %d/%d appends ok, %d bytes in the pinned root; outcome %s",
      exchanges, ok_writes, WRITES, landed, tostring(r.outcome.kind)))
    local now = snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. diff(before, now))
      return "escaped"
    end
    -- positive control: the command really wrote, and into the pinned root
    if ok_writes ~= WRITES or landed ~= WRITES then return "control_failed" end
    return "confined"
  end,
}
