-- Only directories owned by the caller with a root's name shape are
-- evicted.  Planted in the runtime parent: a regular file with a root's
-- name, a regular file with a tombstone's name, two directories of the
-- caller named in hex but not 16 digits long, and (as root) a directory
-- with a root's name and a tombstone directory owned by another user.  gc
-- with max_age_s 0 and max_roots 0 must evict the real root beside them
-- (the positive control) and leave every planted entry and its content
-- alone.
local lib = require "sandproof.lib"
local arr = lib.array

local use_root = lib.rt_use_root

return scenario {
  id = "rt.evict_foreign_entry",
  clauses = { "RT-6" },
  claim = "eviction never removes an entry of the runtime parent that is not a directory owned by the caller with a root's name",
  expect = { linux = { "untouched" }, macos = { "untouched" }, windows = { "untouched" } },
  impact = { removed = "escape", ["removed:*"] = "escape", gc_failed = "fidelity" },
  control = "rt.evict_age",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local plain = use_root(t, parent, t.tmp .. "/ws-plain")
    local files = { parent .. "/00000000000000aa", parent .. "/00000000000000bb.tomb.1.2.3" }
    for _, f in ipairs(files) do assert(sp.write(f, "planted\n", 384)) end
    -- the caller's own directories whose names are hex but not a root's
    -- (16 hex digits): too short, too long
    local odd = { parent .. "/beef", parent .. "/00000000000000eee" }
    for _, d in ipairs(odd) do
      assert(sp.mkdir(d, 448))
      assert(sp.write(d .. "/keep", "mine\n"))
    end
    local dirs = {}
    if sp.getuid() == 0 and sp.os ~= "windows" and sp.os ~= "wine" then
      dirs = { parent .. "/00000000000000cc", parent .. "/00000000000000dd.tomb.4.5.6" }
      for _, d in ipairs(dirs) do
        assert(sp.mkdir(d, 448))
        assert(sp.write(d .. "/keep", "foreign\n"))
        local c = sp.spawn { argv = { "chown", "-R", "65534:65534", d }, timeout_ms = 5000 }
        if not (c and c.code == 0) then t:error("chown failed") end
      end
    else
      t:note("note", "not root, or no uid (Windows): the foreign-owned directory case is not exercised (needs chown)")
    end
    local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
    t:note("note", "gc: " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    if sp.exists(plain) then return "control_failed" end
    for _, f in ipairs(files) do
      if sp.read(f) ~= "planted\n" then return "removed" end
    end
    for _, d in ipairs(dirs) do
      if sp.read(d .. "/keep") ~= "foreign\n" then return "removed" end
    end
    for _, d in ipairs(odd) do
      if sp.read(d .. "/keep") ~= "mine\n" then return "removed:not_a_root_name" end
    end
    return "untouched"
  end,
}
