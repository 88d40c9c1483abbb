-- The current root is never evicted: a run whose own policy is max_age_s 0
-- and max_roots 0 evicts every other root in the parent (the positive
-- control: eviction really ran) but keeps its own, whose TMPDIR stays
-- usable for the whole run and is still there afterwards.  Shell-free:
-- the command is probe ops on the root a first run reported.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

local function profile(t, parent, ws, age, roots)
  if not sp.exists(ws) then assert(sp.mkdir(ws)) end
  local p = t.profiles.workspace_write()
  p.filesystem.write_roots = arr { { root = ws } }
  p.runtime = { parent = parent, max_age_s = age, max_roots = roots }
  return p
end

local use_root = lib.rt_use_root

return scenario {
  id = "rt.evict_never_current",
  clauses = { "RT-6" },
  claim = "a run whose policy evicts everything (max_age_s 0, max_roots 0) never evicts its own root",
  expect = { linux = { "kept" }, macos = { "kept" }, windows = { "kept" } },
  impact = { evicted = "fidelity", root_moved = "fidelity", ["run_failed:*"] = "fidelity" },
  control = "rt.evict_age",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local ws = t.tmp .. "/ws-cur"
    local others = { use_root(t, parent, t.tmp .. "/ws-1"), use_root(t, parent, t.tmp .. "/ws-2") }
    local cur = use_root(t, parent, ws) -- provisioned before, so it has a stamp and is "old" too
    sp.sleep_ms(10)                     -- older than max_age_s 0 (it counts nanoseconds)
    -- TMPDIR/g written, read back 300 ms later, then rewritten
    local g = cur .. "/tmp/g"
    local r, ran, why = lib.rt_run(t, { profile = profile(t, parent, ws, 0, 0), cwd = ws }, cur, {
      { "write", g, "1\n" }, { "sleep", 300 }, { "read", g, as = "g" }, { "write", g, "2\n" } })
    local o = r.outcome
    local rt = type(o.runtime) == "table" and o.runtime or {}
    t:note("note", string.format("kind %s root %s evicted %s skipped %s", tostring(o.kind), tostring(rt.root),
      sp.json_encode(rt.evicted or {}), sp.json_encode(rt.skipped or {})))
    if rt.root ~= cur then return "root_moved" end
    -- positive control: the run's eviction removed the other roots
    for _, other in ipairs(others) do
      if sp.exists(other) then return "control_failed" end
    end
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    if not ran or r.op.g.data ~= "1\n" then
      t:note("note", "the run's TMPDIR did not stay usable: " .. tostring(why or "g read back " .. tostring(r.op.g.data)))
      return "evicted"
    end
    if not (sp.exists(cur) and sp.read(cur .. "/tmp/g") == "2\n" and sp.exists(cur .. ".stamp")) then
      return "evicted"
    end
    return "kept"
  end,
}
