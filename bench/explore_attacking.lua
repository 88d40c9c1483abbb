-- bench/explore_attacking.lua SEED N LOG - of programs 1..N of an explore run
-- seeded SEED, which "attack" (an op that mutates or reads a guarded name, or
-- a connect under network deny, a socket of a family NET-5 forbids, io_uring,
-- a background process), and how many of those the run's LOG reports as
-- violations ("violation i: program k ..." lines); then the same for the
-- programs holding one of the last three (the classes judged from the
-- probe's result and the harness's process count).  lua5.4, from the repository root:
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
local FORBIDDEN = {}
for _, s in ipairs(gen.SOCKETS_FORBIDDEN) do FORBIDDEN[s[1] .. " " .. tostring(s[3])] = true end
local function new_class(p)
  for _, op in ipairs(p.ops) do
    if op[1] == "io_uring" or op[1] == "spawn_daemon" then return true end
    if op[1] == "socket" and FORBIDDEN[op[2] .. " " .. tostring(op[4])] then return true end
  end
  return false
end
local function attacks(p)
  local g = {}
  for k in pairs(GUARD) do g[k] = true end
  for _, e in ipairs(p.policy) do
    if e.kind == "read_only_subpath" then g.ro, g["ro/f"], g["ro/new"] = true, true, true end
    if e.kind == "deny_write" then g["ws/d/f"] = true end
  end
  if new_class(p) then return true end
  local allow = false
  for _, e in ipairs(p.policy) do allow = allow or e.kind == "network" end
  for _, op in ipairs(p.ops) do
    if op[1] == "connect" and not allow then return true end
    for i = 2, #op do
      if MUT[op[1]] and g[op[i]] then return true end
      if op[1] == "read" and (op[i] == "out/secret" or (op[i] == "secret" and p.policy_dr)) then return true end
    end
  end
  return false
end
local att, att_found, other_found, nc, nc_found = 0, 0, 0, 0, 0
for k = 1, n do
  local p = gen.program(seed, k)
  for _, e in ipairs(p.policy) do if e.kind == "deny_read" then p.policy_dr = true end end
  if new_class(p) then
    nc = nc + 1
    if found[k] then nc_found = nc_found + 1 end
  end
  if attacks(p) then
    att = att + 1
    if found[k] then att_found = att_found + 1 end
  elseif found[k] then other_found = other_found + 1 end
end
print(string.format("%d programs, %d attack; violations among them %d (%.0f %%); among the other %d: %d",
  n, att, att_found, att > 0 and 100 * att_found / att or 0, n - att, other_found))
print(string.format("%d hold a forbidden socket, io_uring or a background process; violations among them %d (%.0f %%)",
  nc, nc_found, nc > 0 and 100 * nc_found / nc or 0))
