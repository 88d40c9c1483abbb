-- Clock skew: a stamp whose last use lies ten years in the future.  The
-- age policy cannot judge it (ref treats "used later than now" as not
-- aged, recorded here as evidence), but it must not keep its root forever:
-- the next run on the root records the present as its last use, and the
-- count bound still evicts a future-stamped root.  Shell-free: the first
-- run reports its TMPDIR, the second writes there by a probe op.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

local function set_last_use(stamp, sec)
  local s = assert(sp.read(stamp))
  local n
  s, n = s:gsub("\nlast_use [%d%.]+\n", string.format("\nlast_use %d.000000000\n", sec))
  assert(n == 1, "stamp without last_use: " .. stamp)
  assert(sp.write(stamp, s, 384))
end

local function last_use(stamp)
  local s = sp.read(stamp) or ""
  return tonumber(s:match("\nlast_use (%d+)%."))
end

return scenario {
  id = "rt.stamp_future",
  clauses = { "RT-5", "RT-6" },
  claim = "a stamp dated in the future does not keep its root forever: a run rewrites it to the present and the count bound still evicts it",
  expect = { linux = { "bounded" }, macos = { "bounded" }, windows = { "bounded" } },
  impact = { gc_failed = "fidelity", ["run_failed:*"] = "fidelity", future_kept = "residue", kept_forever = "residue" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local future = os.time() + 10 * 365 * 86400
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local stamp = root .. ".stamp"
    -- a run on a future-stamped root records the present
    set_last_use(stamp, future)
    local r2, ok2, why2 = lib.rt_run(t, { profile = p }, root, { { "write", root .. "/tmp/f", "x\n" } })
    local lu = last_use(stamp)
    t:note("note", string.format("after a run on a future stamp: kind %s last_use %s (now %d)",
      tostring(r2.outcome.kind), tostring(lu), os.time()))
    if not ok2 then return "run_failed:" .. tostring(why2) end
    if not lu or lu > os.time() + 5 then return "future_kept" end
    -- evidence only: what the age policy does with a future stamp
    set_last_use(stamp, future)
    local g0 = t:gc({ parent = parent, max_age_s = 0, max_roots = 64 })
    t:note("note", "age policy (max_age_s 0) on a future stamp: root " ..
      (sp.exists(root) and "kept" or "evicted") .. " (" .. tostring(g0.summary) .. ")")
    if not sp.exists(root) then return "bounded" end -- evicted by age: also bounded
    -- the count bound applies whatever the stamp says
    local g = t:gc({ parent = parent, max_age_s = 864000, max_roots = 0 })
    t:note("note", "count bound (max_roots 0): " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    if sp.exists(root) then return "kept_forever" end
    return "bounded"
  end,
}
