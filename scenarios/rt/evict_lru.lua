-- Count policy and LRU order: three roots are used in the order A, B, C,
-- then A is used again.  Their last use is now B < C < A, unlike their
-- creation order.  gc with max_roots 2 must evict B alone; gc with
-- max_roots 1 must then evict C and keep A.  Nothing is old enough for the
-- age policy (max_age_s is ten days), so only the count bound acts.
local lib = require "sandproof.lib"
local arr = lib.array

local use_root = lib.rt_use_root

return scenario {
  id = "rt.evict_lru",
  clauses = { "RT-5", "RT-6" },
  claim = "past max_roots, gc evicts the least recently used roots first, by last use, not by creation",
  expect = { linux = { "lru" }, macos = { "lru" }, windows = { "lru" } },
  impact = { gc_failed = "fidelity", root_moved = "fidelity", wrong_order = "fidelity", count_not_enforced = "residue" },
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local a = use_root(t, parent, t.tmp .. "/ws-a")
    sp.sleep_ms(20)
    local b = use_root(t, parent, t.tmp .. "/ws-b")
    sp.sleep_ms(20)
    local c = use_root(t, parent, t.tmp .. "/ws-c")
    sp.sleep_ms(20)
    if use_root(t, parent, t.tmp .. "/ws-a") ~= a then return "root_moved" end
    local function state() -- which of a, b, c are still there
      return (sp.exists(a) and "A" or "-") .. (sp.exists(b) and "B" or "-") .. (sp.exists(c) and "C" or "-")
    end
    local g1 = t:gc({ parent = parent, max_age_s = 864000, max_roots = 2 })
    local s1 = state()
    local g2 = t:gc({ parent = parent, max_age_s = 864000, max_roots = 1 })
    local s2 = state()
    t:note("note", string.format("max_roots 2: %s (%s); max_roots 1: %s (%s)", s1,
      tostring(g1.summary), s2, tostring(g2.summary)))
    if not (g1.ran and g2.ran) then return "gc_failed" end
    if s1 == "ABC" then return "count_not_enforced" end
    if s1 ~= "A-C" or s2 ~= "A--" then return "wrong_order" end
    return "lru"
  end,
}
