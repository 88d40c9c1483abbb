-- Leftovers of killed runs are cleaned by gc without following links: a
-- tombstone directory (nested, with a read-only subdirectory and symlinks
-- to the outside victim and its directory), an orphan stamp and lease whose
-- root is gone, and a stamp temporary older than a minute.  A fresh stamp
-- temporary (a run may be writing it) and a live root stay: max_age_s and
-- max_roots are large, so only the leftovers are fair game.
local lib = require "sandproof.lib"
local arr = lib.array

local use_root = lib.rt_use_root

return scenario {
  id = "rt.evict_tombstones",
  clauses = { "RT-6" },
  claim = "gc deletes leftover tombstones, orphan stamps and leases and stale stamp temporaries, never through a symlink",
  expect = { linux = { "cleaned" }, macos = { "cleaned" },
             windows = { unsupported = "the stale stamp temporary is aged by the host's touch -d (no sp primitive sets a file's time), which native Windows lacks" } },
  impact = { followed = "escape", overreach = "escape", gc_failed = "fidelity", residue = "residue" },
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local live = use_root(t, parent, t.tmp .. "/ws-live")
    local tomb = parent .. "/00000000000000aa.tomb.99999.1.1"
    assert(sp.mkdir(tomb, 448))
    assert(sp.mkdir(tomb .. "/tmp", 448))
    assert(sp.mkdir(tomb .. "/tmp/ro", 448))
    assert(sp.write(tomb .. "/tmp/ro/f", "x"))
    assert(sp.chmod(tomb .. "/tmp/ro", 320)) -- 0500: unlinks inside need a chmod first
    assert(sp.symlink(t.outside, tomb .. "/tmp/out"))
    assert(sp.symlink(t.outside .. "/victim", tomb .. "/victim"))
    local orphan = parent .. "/00000000000000bb"
    assert(sp.write(orphan .. ".stamp", "sandproof-runtime-stamp 1\n", 384))
    assert(sp.write(orphan .. ".lease", "", 384))
    local stale = parent .. "/00000000000000cc.stamp.tmp.99999.1.1"
    local fresh = parent .. "/00000000000000dd.stamp.tmp.99999.2.2"
    assert(sp.write(stale, "x", 384))
    assert(sp.write(fresh, "x", 384))
    local tc = sp.spawn { argv = { "touch", "-d", "@" .. (os.time() - 3600), stale }, timeout_ms = 5000 }
    if not (tc and tc.code == 0) then t:error("touch -d failed") end
    local g = t:gc({ parent = parent, max_age_s = 864000, max_roots = 64 })
    t:note("note", "gc: " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    if sp.read(t.outside .. "/victim") ~= "untouched\n" or (sp.lstat(t.outside) or {}).type ~= "dir" then
      return "followed"
    end
    -- positive control: what may be in use stays
    if not (sp.exists(live .. "/tmp/f") and sp.exists(live .. ".stamp") and sp.exists(fresh)) then
      return "overreach"
    end
    local left = {}
    for _, p in ipairs { tomb, orphan .. ".stamp", orphan .. ".lease", stale } do
      if sp.exists(p) then left[#left + 1] = p:match("[^/]+$") end
    end
    if #left > 0 then
      t:note("note", "left: " .. table.concat(left, " "))
      return "residue"
    end
    return "cleaned"
  end,
}
