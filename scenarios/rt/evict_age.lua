-- Age policy: a root whose stamp says it was last used two hours ago is
-- evicted by gc with max_age_s one hour, while a root used just now, in the
-- same parent and the same gc, stays (the positive control).  The oracle is
-- the host's parent directory.
local lib = require "sandproof.lib"
local arr = lib.array

-- Provision the runtime root of workspace ws (under t.tmp) in parent by
-- running one command there; returns the root's host path.
local use_root = lib.rt_use_root

-- Rewrite last_use in a stamp (a fixture, as a stamp left by an old run).
local function set_last_use(stamp, sec)
  local s = assert(sp.read(stamp))
  local n
  s, n = s:gsub("\nlast_use [%d%.]+\n", string.format("\nlast_use %d.000000000\n", sec))
  assert(n == 1, "stamp without last_use: " .. stamp)
  assert(sp.write(stamp, s, 384))
end

return scenario {
  id = "rt.evict_age",
  clauses = { "RT-5", "RT-6" },
  claim = "gc evicts a root whose stamp is older than max_age_s and keeps a recently used one",
  expect = { linux = { "age_enforced" }, macos = { "age_enforced" }, windows = { "age_enforced" } },
  impact = { gc_failed = "fidelity", kept_stale = "residue", residue = "residue" },
  control = "rt.evict_lru",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local old = use_root(t, parent, t.tmp .. "/ws-old")
    local fresh = use_root(t, parent, t.tmp .. "/ws-fresh")
    set_last_use(old .. ".stamp", os.time() - 7200)
    local g = t:gc({ parent = parent, max_age_s = 3600, max_roots = 64 })
    t:note("note", "gc: " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    -- positive control: the fresh root, its stamp and its lease are intact
    if not (sp.exists(fresh .. "/tmp/f") and sp.exists(fresh .. ".stamp")) then return "control_failed" end
    if sp.exists(old) then return "kept_stale" end
    if sp.exists(old .. ".stamp") or sp.exists(old .. ".lease") then return "residue" end
    return "age_enforced"
  end,
}
