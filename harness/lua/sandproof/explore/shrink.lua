-- sandproof.explore.shrink - delta debugging (ddmin, Zeller and
-- Hildebrandt) over a program's ops and policy entries (docs/EXPLORE.md).
--
-- M.ddmin(items, still_fails) returns a 1-minimal sublist (order kept) for
-- which still_fails(sublist) is true: removing any single item more makes
-- it pass.  still_fails(items) must hold on entry (checked: it is the run
-- that found the violation, repeated).  M.program(prog, still_fails) shrinks
-- the ops, then the policy entries, then the ops again; still_fails(p) gets a
-- whole candidate program and is the caller's re-run (same runner, same
-- violation class).  Each call of still_fails is counted in M.runs.
local M = {}

local function split(items, n)
  local parts, len, i = {}, #items, 1
  for k = 1, n do
    local size = len // n + (k <= len % n and 1 or 0)
    local part = {}
    for j = i, i + size - 1 do part[#part + 1] = items[j] end
    i = i + size
    parts[k] = part
  end
  return parts
end

local function complement(parts, skip)
  local out = {}
  for k, part in ipairs(parts) do
    if k ~= skip then for _, x in ipairs(part) do out[#out + 1] = x end end
  end
  return out
end

function M.ddmin(items, still_fails)
  local n = 2
  while #items >= 2 do
    local parts, reduced = split(items, math.min(n, #items)), false
    for k, part in ipairs(parts) do
      if still_fails(part) then
        items, n, reduced = part, 2, true
        break
      end
      local rest = complement(parts, k)
      if #parts > 2 and still_fails(rest) then
        items, n, reduced = rest, math.max(n - 1, 2), true
        break
      end
    end
    if not reduced then
      if n >= #items then break end
      n = math.min(n * 2, #items)
    end
  end
  -- a single item that is not needed at all (a policy entry the violation
  -- does not depend on)
  if #items == 1 and still_fails({}) then return {} end
  return items
end

local function with(prog, field, list)
  local p = { seed = prog.seed, policy = prog.policy, ops = prog.ops, hold = prog.hold }
  p[field] = list
  return p
end

-- The ops, then the policy entries, then the ops again; first of all the
-- hold, dropped when the violation does not need it.
function M.program(prog, still_fails)
  local cur = prog
  if cur.hold then
    local plain = with(cur, "hold", nil)
    if still_fails(plain) then cur = plain end
  end
  for _, field in ipairs { "ops", "policy", "ops" } do
    local best = M.ddmin(cur[field], function(sub) return still_fails(with(cur, field, sub)) end)
    cur = with(cur, field, best)
  end
  return cur
end

return M
