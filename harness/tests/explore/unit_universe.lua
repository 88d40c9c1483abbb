-- Unit checks of explore.universe, run as a scenario by test_explore.sh:
-- a universe an earlier program wrecked (contents, modes, types, links,
-- renames, exchanges, extra names, a symlink in place of a directory) is
-- restored to exactly what a fresh one is, in place (the entries the
-- program left alone keep their inodes), and a home's stray names are
-- removed.  The outcome is "ok" or the first check that failed.
local sp = require "sp"
local oracle = require "sandproof.explore.oracle"
local universe = require "sandproof.explore.universe"

-- Every entry under the universe's three roots, as "label type mode nlink
-- text", sorted; inodes left out (they differ between two fresh ones).
local function listing(u)
  local out = {}
  local function walk(p, label)
    local st = sp.lstat(p)
    if not st then out[#out + 1] = label .. " absent" return end
    local line = string.format("%s %s %o %d", label, st.type, st.mode, st.nlink)
    if st.type == "file" then line = line .. " " .. tostring(sp.read(p)) end
    if st.type == "link" then line = line .. " link" end
    if st.type == "dir" then line = line .. " dir" end
    out[#out + 1] = line
    if st.type == "dir" then
      local names = sp.listdir(p) or {}
      table.sort(names)
      for _, n in ipairs(names) do walk(p .. "/" .. n, label .. "/" .. n) end
    end
  end
  walk(u.ws, "ws")
  walk(u.outside, "out")
  walk(u.visible_outside, "vis")
  return table.concat(out, "\n")
end

-- What a program could have done, through the probe where sp has no call
-- (a hard link, an exchange).
local function wreck(t, u)
  local function probe(...)
    local r = sp.spawn { argv = { t.paths.probe, ... }, timeout_ms = 10000 }
    return r and r.code == 0
  end
  local ws = u.ws
  assert(sp.write(ws .. "/a", "changed\n"))
  assert(sp.chmod(ws .. "/a", 2541)) -- 4755: setuid
  assert(probe("link", ws .. "/a", ws .. "/b"))
  assert(sp.unlink(ws .. "/secret"))
  assert(probe("link", ws .. "/a", ws .. "/secret")) -- two names of the tree, one inode
  assert(probe("rename_exchange", ws .. "/.git/config", ws .. "/d/f"))
  assert(sp.rename(ws .. "/d", ws .. "/moved"))
  assert(sp.mkdir(ws .. "/d", 448))
  assert(sp.rename(ws .. "/ro", ws .. "/ro2"))
  assert(sp.symlink(u.outside, ws .. "/ro"))
  assert(sp.write(ws .. "/.git/hooks/pre-commit", "#!/bin/sh\necho pwned\n", 493))
  assert(sp.mkdir(ws .. "/.agents"))
  assert(sp.write(ws .. "/.agents/x", "x"))
  assert(sp.chmod(ws .. "/.agents", 0))
  assert(sp.chmod(ws .. "/.git", 0))
  assert(sp.unlink(u.outside .. "/secret"))
  assert(sp.unlink(u.outside .. "/victim"))
  assert(sp.mkdir(u.outside .. "/victim"))
  assert(probe("link", u.visible_outside .. "/victim", u.outside .. "/new"))
  assert(sp.write(u.visible_outside .. "/new", "x"))
  assert(sp.chmod(u.visible_outside, 320)) -- 0500
  assert(sp.chmod(ws, 0))
end

local function checks(t)
  local home = assert(universe.home_new())
  local h = { tmp = home.tmp, vtmp = home.vtmp }
  local ok, why = pcall(function()
    local fresh = listing(oracle.universe(h, 2, 8))
    local u = oracle.universe(h, 1, 7)
    if listing(u) == fresh then return "universes of seeds 7 and 8 are alike (the secrets hold no seed)" end
    local head = sp.lstat(u.ws .. "/.git/HEAD").ino
    wreck(t, u)
    assert(sp.symlink(u.ws, home.tmp .. "/swap-7"))
    assert(sp.write(home.vtmp .. "/stray", "x"))
    universe.tidy(home)
    if sp.lstat(home.tmp .. "/swap-7") or sp.lstat(home.vtmp .. "/stray") then
      return "tidy left a stray name in the home"
    end
    if not sp.lstat(u.ws) or not sp.lstat(home.tmp .. "/u2") then return "tidy removed a universe" end
    local again = oracle.universe(h, 1, 8)
    local got = listing(again)
    if got ~= fresh then
      return "a restored universe differs from a fresh one:\n" .. got .. "\n--- fresh:\n" .. fresh
    end
    if sp.lstat(again.ws .. "/.git/HEAD").ino ~= head then return "restoring re-made .git/HEAD, which nothing changed" end
    if not sp.lstat(again.ws .. "/.git/hooks") then return "no .git/hooks" end
    return "ok"
  end)
  universe.home_remove(home)
  if not ok then return "error: " .. tostring(why) end
  return why
end

return scenario {
  id = "fs.explore_universe",
  clauses = { "FS-1" },
  claim = "a universe explore restores in place is exactly a fresh one",
  expect = { linux = { "ok" }, macos = { unsupported = "explore is linux only so far" },
             windows = { unsupported = "explore is linux only so far" } },
  impact = { ["*"] = "fidelity" },
  run = function(t) return checks(t) end,
}
