-- sandproof.explore.universe - the tree a program runs in (docs/EXPLORE.md,
-- "The universe"), laid out fresh or restored in place.
--
-- A universe is three directories: a workspace (with the parts of a git
-- repository the contract names), a hidden outside (under /tmp) and a
-- visible one (under /var/tmp), each with fixed entries and texts, two of
-- them the program's secrets (its seed in them).  M.lay makes the three
-- trees exactly that, whatever an earlier program left there: a worker
-- keeps its universes for the whole run (M.home_new) and restores each
-- before the next program instead of removing and re-creating it, since on
-- a file system like this machine's (ext4 without a journal) creating an
-- inode costs 0.2-0.7 ms once many were deleted recently, and creating and
-- removing universes was most of a program's cost (bench/EXPLORE.md).
--
-- Exactness: after M.lay every entry of the tree exists with its type,
-- mode and text, every file its own inode (a link count of 1), and nothing
-- else is under the three directories.  Inode numbers differ from a fresh
-- layout's, as they differ between two fresh ones; the oracle compares a
-- program's snapshots before and after, never with a fixed state.  Nothing
-- is followed: a name found as a symlink (or any type other than the
-- tree's) is removed, never written through.
local sp = require "sp"

local M = {}

local DIR, FILE = 493, 420 -- 0755, 0644

local function dir(children) return { kind = "dir", mode = DIR, children = children } end
local function file(text) return { kind = "file", mode = FILE, text = text } end

-- The secrets a read must never return (oracle): the deny_read file's
-- and the hidden outside's, the program's seed in each.
function M.secrets(seed)
  return { secret = "sp-deny-read-" .. seed, ["out/secret"] = "sp-hidden-tmp-" .. seed }
end

-- The three trees of a universe whose program is seeded `seed`.
function M.tree(seed)
  local s = M.secrets(seed)
  return {
    ws = dir {
      [".git"] = dir {
        HEAD = file "ref: refs/heads/main\n",
        config = file "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
        hooks = dir {},
      },
      a = file "a\n", d = dir { f = file "f\n" }, ro = dir { f = file "ro\n" },
      secret = file(s.secret),
    },
    out = dir { victim = file "untouched\n", secret = file(s["out/secret"]) },
    vis = dir { victim = file "untouched\n" },
  }
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- Removes path (any type; a directory with all below it; a symlink itself,
-- never its target).  sp.rmtree refuses any path outside the harness's
-- temp directories.
local function remove(path)
  local ok, err = sp.rmtree(path)
  if not ok then error("universe: removing " .. path .. ": " .. tostring(err), 0) end
end

local function must(ok, err, what, path)
  if not ok then error("universe: " .. what .. " " .. path .. ": " .. tostring(err), 0) end
end

-- Makes path what node says; raises (a string) when it cannot.
local function restore(path, node)
  local st = sp.lstat(path)
  -- a file shared with another name (a link the program made) would be
  -- rewritten under both: it gets an inode of its own
  if st and (st.type ~= node.kind or (node.kind == "file" and st.nlink ~= 1)) then
    remove(path)
    st = nil
  end
  if not st then
    if node.kind == "dir" then must(sp.mkdir(path, node.mode), "mkdir", path)
    else must(sp.write(path, node.text, node.mode), "write", path) end
    st = sp.lstat(path) -- the mode as made (the umask applies)
    if not st then error("universe: " .. path .. " vanished as it was made", 0) end
  end
  -- the mode first: a directory or file left without its owner's
  -- permissions could not be listed or read
  if st.mode ~= node.mode then must(sp.chmod(path, node.mode), "chmod", path) end
  if node.kind == "file" then
    if sp.read(path) ~= node.text then must(sp.write(path, node.text, node.mode), "write", path) end
    return
  end
  local names, err = sp.listdir(path)
  must(names, err, "listdir", path)
  for _, n in ipairs(names) do
    if not node.children[n] then remove(path .. "/" .. n) end
  end
  for _, n in ipairs(sorted_keys(node.children)) do restore(path .. "/" .. n, node.children[n]) end
end

-- Lays out universe u ({ ws, outside, visible_outside, seed }): each of its
-- three trees made exactly as M.tree(u.seed) says, restored in place when
-- one is there already.  When restoring fails (an entry the harness cannot
-- change) the three are removed and made fresh; raises if that fails too.
function M.lay(u)
  local t = M.tree(u.seed)
  local roots = { { u.ws, t.ws }, { u.outside, t.out }, { u.visible_outside, t.vis } }
  local ok, err = pcall(function()
    for _, r in ipairs(roots) do restore(r[1], r[2]) end
  end)
  if ok then return end
  for _, r in ipairs(roots) do
    if sp.lstat(r[1]) then remove(r[1]) end
  end
  ok, err = pcall(function()
    for _, r in ipairs(roots) do restore(r[1], r[2]) end
  end)
  if not ok then error("universe: cannot lay out " .. u.ws .. ": " .. tostring(err), 0) end
end

-- ---- a worker's home: the universes it keeps for the whole run ----------------

-- Two temp directories (under /tmp and /var/tmp, named with this process's
-- pid, so the harness parent removes them if the process dies first) that
-- hold universe i as u<i> and out<i> (/tmp) and out<i> (/var/tmp).
function M.home_new()
  local prefix = "/sandproof-" .. sp.getpid() .. "-explore_home-"
  local tmp, err = sp.mkdtemp(sp.temp_roots[1] .. prefix)
  if not tmp then return nil, err end
  local vtmp, verr = sp.mkdtemp(sp.temp_roots[2] .. prefix)
  if not vtmp then sp.rmtree(tmp) return nil, verr end
  return { tmp = tmp, vtmp = vtmp }
end

-- Removes what a launch left in home beside the universes (a held
-- program's symlink): before each launch, so that what one program left
-- is never there for the next.
function M.tidy(home)
  for _, d in ipairs { { home.tmp, { "^u%d+$", "^out%d+$" } }, { home.vtmp, { "^out%d+$" } } } do
    local names, err = sp.listdir(d[1])
    must(names, err, "listdir", d[1])
    for _, n in ipairs(names) do
      local keep = false
      for _, pat in ipairs(d[2]) do keep = keep or n:find(pat) ~= nil end
      if not keep then remove(d[1] .. "/" .. n) end
    end
  end
end

-- The home's network lab, kept between launches: making one (a network
-- namespace, a veth pair, its keeper) cost about 3 ms of CPU, and most
-- launches need one.  Its listeners are never shared: each program that
-- connects gets three of its own (oracle.prepare), so a listener's hits
-- are one program's.  A lab holds LAB_MAX of them in its life, so before a
-- launch M.home_reserve makes room for the launch's listeners (replacing
-- the lab when they would not fit), and M.home_lab lends the lab, made
-- when first needed (nil and why when none can be made).
M.LAB_MAX = 16
function M.home_reserve(home, listeners)
  if listeners == 0 then return end
  if (home.lab_used or 0) + listeners > M.LAB_MAX then
    if home.lab then home.lab:destroy() end
    home.lab, home.lab_used = nil, 0
  end
  home.lab_used = (home.lab_used or 0) + listeners
end

function M.home_lab(home)
  if not home.lab then
    local l, err = sp.lab {}
    if not l then return nil, err end
    home.lab = l
  end
  return home.lab
end

function M.home_remove(home)
  if home then
    if home.lab then home.lab:destroy() end
    home.lab = nil
    sp.rmtree(home.tmp)
    sp.rmtree(home.vtmp)
  end
end

return M
