-- Stamp race: a root whose stamp is stale is started on (its stamp is
-- touched under the run's shared lease) while evictors with max_age 0 run
-- in a loop.  No run may find its TMPDIR missing or unwritable, and a root
-- is only ever removed when no run holds it.  Shell-free: a first run
-- provisions the root (the workspace's, so every later start is on it)
-- and reports its TMPDIR; each start then writes 1..5 there and reads each
-- back by probe ops.
local lib = require "sandproof.lib"

return scenario {
  id = "rt.touch_vs_evict",
  clauses = { "RT-4", "RT-5", "RT-6" },
  claim = "a run starting on a stale root while evictors decide always keeps a working TMPDIR",
  expect = { linux = { "consistent" }, macos = { "consistent" }, windows = { "consistent" } },
  impact = { broken = "fidelity" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  exclusive = "a timed race: evictors started at random delays race the starts, and the windows (its stated power) depend on their relative speed",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 0, max_roots = 1 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local f, ops = root .. "/tmp/f", {}
    for i = 1, 5 do
      ops[#ops + 1] = { "write", f, i .. "\n" }
      ops[#ops + 1] = { "read", f, as = "r" .. i }
    end
    local attempts, windows, broken = 12, 0, 0
    for i = 1, attempts do
      local evictions = 0
      -- the evictor strikes at a different moment of each start
      local bg = t:gc_async({ parent = parent, max_age_s = 0, max_roots = 0,
                                        delay_ms = math.random(0, 40) })
      local r, ok, why = lib.rt_run(t, { profile = p }, root, ops)
      local g = bg:wait()
      if g and g.ran then evictions = evictions + (g.evicted or 0) + (g.skipped or 0) end
      for k = 1, 5 do
        if ok and r.op["r" .. k].data ~= k .. "\n" then
          ok, why = false, string.format("read back %q after writing %d", tostring(r.op["r" .. k].data), k)
        end
      end
      if not ok then
        broken = broken + 1
        t:note("note", "attempt " .. i .. ": " .. tostring(why))
      end
      -- a window is an attempt where the evictor met a root (evicted or skipped it)
      if evictions > 0 then windows = windows + 1 end
    end
    t:set_power { attempts = attempts, windows = windows, min = attempts // 2 }
    return broken == 0 and "consistent" or "broken"
  end,
}
