-- bench/explore_attacking.lua SEED N LOG - of programs 1..N of an explore run
-- seeded SEED, which "attack" (an op that mutates or reads a guarded name, or
-- a connect), and how many of those the run's LOG reports as violations
-- ("violation i: program k ..." lines).  lua5.4, from the repository root:
--   lua5.4 bench/explore_attacking.lua 11 300 explore-bench/none.log
package.path = "harness/lua/?.lua;" .. package.path
local gen = require "sandproof.explore.gen"
local seed, n, log = tonumber(arg[1]), tonumber(arg[2]), arg[3]
local found = {}
for l in io.lines(log) do
  local k = l:match("^violation %d+: program (%d+) ")
  if k then found[tonumber(k)] = true end
end
local MUT = { write = true, append = true, mkdir = true, rename = true, rename_exchange = true,
              symlink = true, link = true, unlink = true, rmdir = true }
local GUARD = { git = true, hooks = true, ["hooks/pre-commit"] = true, config = true, agents = true,
                zero = true, out = true, ["out/victim"] = true, ["out/secret"] = true, ["out/new"] = true,
                vis = true, ["vis/victim"] = true, ["vis/new"] = true }
local function attacks(p)
  local g = {}
  for k in pairs(GUARD) do g[k] = true end
  for _, e in ipairs(p.policy) do
    if e.kind == "read_only_subpath" then g.ro, g["ro/f"], g["ro/new"] = true, true, true end
    if e.kind == "deny_write" then g["ws/d/f"] = true end
  end
  for _, op in ipairs(p.ops) do
    if op[1] == "connect" then return true end
    for i = 2, #op do
      if MUT[op[1]] and g[op[i]] then return true end
      if op[1] == "read" and (op[i] == "out/secret" or (op[i] == "secret" and p.policy_dr)) then return true end
    end
  end
  return false
end
local att, att_found, other_found = 0, 0, 0
for k = 1, n do
  local p = gen.program(seed, k)
  for _, e in ipairs(p.policy) do if e.kind == "deny_read" then p.policy_dr = true end end
  if attacks(p) then
    att = att + 1
    if found[k] then att_found = att_found + 1 end
  elseif found[k] then other_found = other_found + 1 end
end
print(string.format("%d programs, %d attack a guarded name or connect; violations among them %d (%.0f %%); among the other %d: %d",
  n, att, att_found, att > 0 and 100 * att_found / att or 0, n - att, other_found))
