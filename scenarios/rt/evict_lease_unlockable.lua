-- Fail-safe: a root whose lease cannot be taken is skipped, never evicted.
-- Three roots; the lease of one is replaced by a directory (EISDIR), the
-- lease of another by a symlink to the outside victim (ELOOP: never
-- followed), and as root the lease of a third is handed to another user
-- (EPERM).  gc with max_age_s 0 and max_roots 0 must leave those roots and
-- the victim alone, and evict the ordinary root beside them (the positive
-- control).
local lib = require "sandproof.lib"
local arr = lib.array

local use_root = lib.rt_use_root

return scenario {
  id = "rt.evict_lease_unlockable",
  clauses = { "RT-4", "RT-6" },
  claim = "gc skips a root whose lease cannot be taken (a directory, a symlink, another user's file) and never follows the lease",
  expect = { linux = { "skipped" }, macos = { "skipped" }, windows = { "skipped" } },
  impact = { lease_followed = "escape", evicted = "fidelity", gc_failed = "fidelity" },
  control = "rt.evict_age",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local victim = t.outside .. "/victim"
    local dir_lease = use_root(t, parent, t.tmp .. "/ws-dir")
    local link_lease = use_root(t, parent, t.tmp .. "/ws-link")
    local plain = use_root(t, parent, t.tmp .. "/ws-plain")
    assert(sp.unlink(dir_lease .. ".lease"))
    assert(sp.mkdir(dir_lease .. ".lease", 448))
    assert(sp.unlink(link_lease .. ".lease"))
    assert(sp.symlink(victim, link_lease .. ".lease"))
    local guarded = { dir_lease, link_lease }
    if sp.getuid() == 0 and sp.os ~= "windows" and sp.os ~= "wine" then
      local foreign = use_root(t, parent, t.tmp .. "/ws-foreign")
      local c = sp.spawn { argv = { "chown", "65534:65534", foreign .. ".lease" }, timeout_ms = 5000 }
      if not (c and c.code == 0) then t:error("chown failed") end
      guarded[#guarded + 1] = foreign
    else
      t:note("note", "not root, or no uid (Windows): the foreign-owned lease case is not exercised")
    end
    local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
    t:note("note", "gc: " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    if sp.exists(plain) then return "control_failed" end
    if sp.read(victim) ~= "untouched\n" or (sp.lstat(link_lease .. ".lease") or {}).type ~= "link" then
      return "lease_followed"
    end
    for _, root in ipairs(guarded) do
      if not sp.exists(root .. "/tmp/f") then
        t:note("note", "evicted without its lease: " .. root)
        return "evicted"
      end
    end
    return "skipped"
  end,
}
