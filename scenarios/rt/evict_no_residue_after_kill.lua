-- No residue after a SIGKILLed runner: a run holding its runtime root is
-- killed 400 ms in (SIGKILL, no cleanup possible).  Afterwards no lock is
-- held in the runtime parent, no mount is left under the scenario's
-- directory, no sandboxed process is left, and gc with max_age_s 0 and
-- max_roots 0 evicts the dead run's root (its lease is free again) and
-- leaves the parent empty: no stamp temporary, tombstone or orphan lease.
-- Positive control: the command really ran on the root before the kill.
return scenario {
  id = "rt.evict_no_residue_after_kill",
  clauses = { "RT-4", "RT-6", "PROC-10" },
  claim = "after a runner is SIGKILLed mid-run its root's lease is free and gc leaves no residue in the runtime parent",
  expect = { linux = { "clean" }, macos = { "clean" }, windows = { "clean" } },
  impact = { gc_failed = "fidelity", lease_held = "residue", mount_left = "residue", process_left = "residue", residue = "residue" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local marker = string.format("sandproof-rt-kill-%d-%d", sp.getpid(), t.seed)
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local r = t:sandbox { profile = p, timeout_ms = 20000, signal_when = t.ws .. "/started", signal_after_ms = 100,
      signal = "SIGKILL",
      command = { "sh", "-c", 'echo x > "$TMPDIR/f" && echo started > "$PWD/started" && exec sh -c "sleep 15" ' .. marker } }
    sp.sleep_ms(200)
    if not sp.exists(t.ws .. "/started") then return "control_failed" end
    local c = sp.census { marker = marker, locks = parent, mounts = { t.tmp } }
    t:note("census", string.format("kind %s: processes %d locks %d mounts %d", tostring(r.outcome.kind),
      #c.processes, #c.locks, #c.mounts))
    if #c.processes > 0 then return "process_left" end
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
