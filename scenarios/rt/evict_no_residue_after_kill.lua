-- No residue after a SIGKILLed runner: a run holding its runtime root is
-- killed 100 ms after its command started (SIGKILL, no cleanup possible).
-- Afterwards no sandboxed process is left, a daemon the command started
-- (probe spawn_daemon: setsid and a double fork; on Windows a detached
-- process asking to break away from the job) included (the census, by a
-- marker in their command lines), and, where the OS's census lists them
-- (CENSUS below), no lock is held in the runtime parent and no mount is
-- left under the scenario's directory; Windows's census finds a held lock
-- by contention (an exclusive LockFileEx refused,
-- platforms/windows/prims/census_win.c) and has no mount table.  Then gc with max_age_s 0 and
-- max_roots 0 evicts the dead run's root (its lease is free again: a held
-- lease makes gc skip it) and leaves the parent empty: no stamp temporary,
-- tombstone or orphan lease.  Positive control: the command really ran on
-- the root before the kill, and its daemon wrote its pidfile.  Shell-free, on every OS: a first run
-- provisions the root and reports its TMPDIR; the killed run is probe ops;
-- the kill is the launcher's own (proc.h: SIGKILL of the runner alone,
-- TerminateProcess on Windows), never a host shell.
local lib = require "sandproof.lib"

-- What each OS's census lists besides processes (t:census; macOS has no
-- census at all: unsupported there, with the platform's reason).
local CENSUS = { linux = { locks = true, mounts = true }, windows = { locks = true } }

return scenario {
  id = "rt.evict_no_residue_after_kill",
  clauses = { "RT-4", "RT-6", "PROC-10" },
  claim = "after a runner is SIGKILLed mid-run its root's lease is free and gc leaves no residue in the runtime parent",
  expect = { linux = { "clean" }, macos = { "clean" },
             windows = { "clean" } },
  impact = { gc_failed = "fidelity", lease_held = "residue", mount_left = "residue", process_left = "residue", residue = "residue" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  exclusive = "a residue check after a kill: processes, lease and mounts are counted 200 ms after the runner's SIGKILL, a grace that other pairs' load would eat into",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local marker = string.format("sandproof-rt-kill-%d-%d", sp.getpid(), t.seed)
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    -- the marker rides in the command line as an env op's name (unset), and
    -- in the daemon's pidfile name (a Windows daemon's command line names it)
    local pidfile = t.ws .. "/" .. marker .. ".pid"
    local r = t:sandbox { profile = p, timeout_ms = 20000, signal_when = t.ws .. "/started", signal_after_ms = 100,
      signal = "SIGKILL", probe = { { "env", marker }, { "write", root .. "/tmp/f", "x\n" },
        { "spawn_daemon", pidfile }, { "write", t.ws .. "/started", "started\n" }, { "sleep", 15000 } } }
    sp.sleep_ms(200)
    if not (sp.exists(t.ws .. "/started") and sp.read(root .. "/tmp/f") == "x\n" and sp.exists(pidfile)) then
      return "control_failed"
    end
    local has = CENSUS[sp.os] or {}
    local c = t:census { marker = marker, temp = {}, locks = has.locks and parent or nil,
                         mounts = has.mounts and { t.tmp } or nil }
    -- r.harness_killed: processes of the run still alive once the runner
    -- was gone, which the harness then killed (so the census after it
    -- cannot see them); a daemon that left the run's tree (a Windows job)
    -- is the census's to find
    t:note("census", string.format("kind %s: processes %d (and %s the harness killed) locks %s mounts %s",
      tostring(r.outcome.kind), #c.processes, tostring(r.harness_killed),
      has.locks and #c.locks or "(not listed on " .. sp.os .. ")",
      has.mounts and #c.mounts or "(not listed on " .. sp.os .. ")"))
    if #c.processes > 0 or (r.harness_killed or 0) > 0 then return "process_left" end
    if #c.locks > 0 then return "lease_held" end
    if #c.mounts > 0 then return "mount_left" end
    local before = sp.listdir(parent) or {}
    local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
    local after = sp.listdir(parent) or {}
    t:note("note", string.format("parent before gc: %s; gc: %s; after: %s", table.concat(before, " "),
      tostring(g.summary), table.concat(after, " ")))
    if not g.ran then return "gc_failed" end
    if (g.skipped or 0) > 0 then return "lease_held" end
    if #after > 0 then return "residue" end
    return "clean"
  end,
}
