-- Unit checks of explore.gen and explore.shrink, run as a scenario by
-- test_explore.sh (so they use the harness's own Lua, no other interpreter):
-- the outcome is "ok" or the first check that failed.
local gen = require "sandproof.explore.gen"
local shrink = require "sandproof.explore.shrink"

local function checks()
  -- determinism: the generator's first outputs for seed 1 are pinned (the
  -- same on every platform and Lua 5.4 build), and a program is a function
  -- of (seed, index) alone
  local r = gen.rng(1)
  local first = { r:next(), r:next(), r:next() }
  local want = { 6791897765849424158, -1041056189838986770, 834844254806117752 }
  for i = 1, 3 do
    if first[i] ~= want[i] then return "rng(1) output " .. i .. " is " .. first[i] end
  end
  local want1 = '{ seed = 105870245163550, policy = { { kind = "read_only_subpath", name = "ro" }, { kind = "deny_read", name = "secret" } }, ops = { { "socket", "raw" }, { "sleep", 3 }, { "rename_exchange", "out/new", "ws/d/g" }, { "chmod", "out", "000" }, { "tmpfile_link", "out", "ws/d/g", "x" }, { "unshare_user" } } }'
  if gen.program_text(gen.program(1, 1)) ~= want1 then
    return "program(1, 1) is " .. gen.program_text(gen.program(1, 1))
  end
  for k = 1, 50 do
    if gen.program_text(gen.program(7, k)) ~= gen.program_text(gen.program(7, k)) then
      return "program(7, " .. k .. ") differs between two draws"
    end
  end
  if gen.program_text(gen.program(7, 1)) == gen.program_text(gen.program(8, 1)) then
    return "seeds 7 and 8 gave the same first program"
  end
  -- coverage of the grammar over 3000 programs: every op, every name,
  -- every policy entry, and most adjacent op pairs
  local ops, names, entries, pairs_, traced = {}, {}, {}, {}, { [true] = 0, [false] = 0 }
  for k = 1, 3000 do
    local p = gen.program(3, k)
    local prev, daemons = nil, {}
    for _, op in ipairs(p.ops) do
      ops[op[1]] = true
      if op[1] == "spawn_daemon" then daemons["@" .. op[2]] = true end
      if gen.TRACES[op[1]] then traced[daemons[op[2]] == true] = traced[daemons[op[2]] == true] + 1 end
      if prev then pairs_[prev .. op[1]] = true end
      prev = op[1]
      for _, n in ipairs(gen.op_names(op)) do names[n] = true end
    end
    for _, e in ipairs(p.policy) do entries[e.kind] = true end
  end
  for _, o in ipairs(gen.OPS) do if not ops[o] then return "op " .. o .. " never drawn" end end
  for _, n in ipairs(gen.NAMES) do if not names[n] then return "name " .. n .. " never drawn" end end
  for _, e in ipairs(gen.POLICY_ENTRIES) do
    if not entries[e.kind] then return "policy entry " .. e.kind .. " never drawn" end
  end
  -- a tracing op mostly finds its target's pidfile written before it
  if traced[true] < 3 * traced[false] or traced[false] == 0 then
    return string.format("tracing ops with a daemon before them: %d, without: %d", traced[true], traced[false])
  end
  local np = 0
  for _ in pairs(pairs_) do np = np + 1 end
  if np < #gen.OPS * #gen.OPS * 9 // 10 then return "only " .. np .. " adjacent op pairs drawn" end
  -- the coverage the driver states stays within its totals, and reaches
  -- them over enough programs
  local driver = require "sandproof.explore.driver"
  local cov = { op_pairs = {}, name_pairs = {} }
  for k = 1, 20000 do driver.cover(cov, gen.program(5, k)) end
  local c = driver.coverage(cov)
  if c.op_pairs ~= c.op_pairs_total or c.name_pairs ~= c.name_pairs_total then
    return string.format("coverage over 20000 programs: op pairs %d/%d, name pairs %d/%d",
                         c.op_pairs, c.op_pairs_total, c.name_pairs, c.name_pairs_total)
  end
  -- ddmin on synthetic predicates: the 1-minimal failing subsets
  local items = {}
  for i = 1, 20 do items[i] = i end
  local function has(l, x) for _, y in ipairs(l) do if y == x then return true end end return false end
  local got = shrink.ddmin(items, function(s) return has(s, 3) and has(s, 17) end)
  if #got ~= 2 or got[1] ~= 3 or got[2] ~= 17 then return "ddmin {3,17}: got {" .. table.concat(got, ",") .. "}" end
  got = shrink.ddmin(items, function(s) return has(s, 5) end)
  if #got ~= 1 or got[1] ~= 5 then return "ddmin {5}: got {" .. table.concat(got, ",") .. "}" end
  got = shrink.ddmin(items, function(s) return has(s, 2) and has(s, 9) and has(s, 20) end)
  if table.concat(got, ",") ~= "2,9,20" then return "ddmin {2,9,20}: got {" .. table.concat(got, ",") .. "}" end
  got = shrink.ddmin({ 1 }, function() return true end)
  if #got ~= 0 then return "ddmin of an item nothing needs kept it" end
  -- shrink.program: ops then policy, each to what the predicate needs
  local prog = { seed = 1, policy = { { kind = "deny_read", name = "secret" }, { kind = "deny_write", name = "ws/d/f" } },
                 ops = { { "sleep", 1 }, { "read", "secret" }, { "stat", "ws/a" }, { "write", "ws/a", "x" } } }
  local best = shrink.program(prog, function(p)
    local r, d = false, false
    for _, op in ipairs(p.ops) do r = r or op[1] == "read" end
    for _, e in ipairs(p.policy) do d = d or e.kind == "deny_read" end
    return r and d
  end)
  if #best.ops ~= 1 or best.ops[1][1] ~= "read" or #best.policy ~= 1 or best.policy[1].kind ~= "deny_read" then
    return "shrink.program kept " .. gen.program_text(best)
  end
  -- a hold is kept only when the violation needs it, and printed
  local held = { seed = 1, policy = {}, ops = { { "write", "ws/a", "x" }, { "stat", "ws/a" } }, hold = { at = 3 } }
  best = shrink.program(held, function(p) return p.hold ~= nil and #p.ops > 0 end)
  if not best.hold or #best.ops ~= 1 then return "shrink.program with a needed hold kept " .. gen.program_text(best) end
  best = shrink.program(held, function(p) return #p.ops > 0 end)
  if best.hold then return "shrink.program kept a hold nothing needs: " .. gen.program_text(best) end
  if not gen.program_text(held):find(", hold = { at = 3 } }$") then
    return "program_text dropped the hold: " .. gen.program_text(held)
  end
  local nheld = 0
  for k = 1, 1000 do if gen.program(3, k).hold then nheld = nheld + 1 end end
  if nheld < 50 or nheld > 150 then return nheld .. " of 1000 programs held (want about 100)" end
  return "ok"
end

return scenario {
  id = "fs.explore_unit",
  clauses = { "FS-1" },
  claim = "explore's generator is deterministic and covers its grammar; ddmin finds 1-minimal subsets",
  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } },
  impact = { ["*"] = "fidelity" },
  run = function() return checks() end,
}
