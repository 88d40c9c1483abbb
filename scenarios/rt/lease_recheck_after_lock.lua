-- RT-4: a lease counts only if the file locked is still the one at the
-- lease's name.  A run is held at its first flock (the shared lease: it has
-- opened the lease file, not locked it yet) while an evictor (gc, max_age
-- 0) takes that root: it locks the same file exclusively, renames the root
-- to a tombstone and unlinks stamp and lease.  The held run's flock then
-- succeeds on a file no longer at the name; it must notice, lock the new
-- lease file and provision afresh.  A second evictor strikes while the
-- command sleeps: it must find the lease held and skip the root, whose
-- TMPDIR keeps the command's file to the end.  A run that kept the lock on
-- the unlinked file holds no lease at all, and the second evictor takes
-- its root from under it.  Positive controls: the first evictor evicted
-- the root, and the held call came.  Windows: no path hold opens this
-- window (the oplock rules of IRP_MJ_CREATE and IRP_MJ_LOCK_CONTROL): an
-- exclusive oplock breaks at the runner's open, and the shared oplocks that
-- can be granted while the runner has the file open let its lock proceed
-- at once.
local lib = require "sandproof.lib"

return scenario {
  id = "rt.lease_recheck_after_lock",
  clauses = { "RT-4", "RT-6" },
  claim = "a run whose lease file was unlinked while it waited for the lock takes the new lease, so eviction cannot take its root during the run",
  expect = { linux = { "kept" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification (the lease is re-checked in a held window)" },
             windows = { unsupported = "no oplock holds this window (between the runner's open of the lease file and its lock): the open itself breaks an exclusive oplock, before the runner has the file; once it has it only a shared oplock (read, read-handle) can be granted, and a byte-range lock breaks that without waiting" } },
  impact = { evicted = "fidelity", gc_failed = "fidelity", ["broken:*"] = "fidelity" },
  control = "rt.evict_lru",
  needs = { "gc" },
  exclusive = "a load-sensitive window: the second evictor, 2 s after its start, must strike while the command sleeps (4 s); a slow run would put the strike outside it",
  run = function(t)
    local parent, ws = t.tmp .. "/rt", t.tmp .. "/ws-lease"
    lib.rt_use_root(t, parent, ws)                               -- the root the first evictor takes
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = lib.array { { root = ws } }
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    -- the second evictor: 2 s in, while the command sleeps (4 s)
    local later = t:gc_async { parent = parent, max_age_s = 0, max_roots = 0, delay_ms = 2000 }
    local first
    local r = t:hold { syscalls = { "flock" }, at = 1, comm = "sandproof-ref", sandbox = {
      profile = p, cwd = ws,
      command = { "sh", "-c", 'echo a > "$TMPDIR/x" && sleep 4 && cat "$TMPDIR/x"' },
    }, action = function()
      first = t:gc { parent = parent, max_age_s = 0, max_roots = 0 }
    end }
    local second = later:wait()
    local o = r.outcome
    local root = type(o.runtime) == "table" and o.runtime.root or nil
    t:note("note", string.format("held flock hit %s; first gc: %s; run kind %s stdout %q; second gc: %s",
      tostring(r.hold_hit), first and first.summary or "-", tostring(o.kind), tostring(r.stdout),
      second and second.summary or "-"))
    if not (r.hold_hit and first and first.ran and first.evicted >= 1) then return "control_failed" end
    if not (second and second.ran) then return "gc_failed" end
    if o.kind ~= "success" or r.stdout ~= "a\n" then return "broken:" .. tostring(o.kind) end
    if not (root and sp.exists(root .. "/tmp/x")) then return "evicted" end
    return "kept"
  end,
}
