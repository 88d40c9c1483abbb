-- With Landlock in the kernel, the runner applies it, and the effect shows
-- inside the sandbox, not only the number it reports (OUT-4: what was
-- applied, never what was asked).  The effect: a write to /proc/self/comm,
-- which the mount layer allows (the sandbox's /proc is a fresh read-write
-- procfs, checked by mountinfo in the same run), fails with EACCES -
-- only Landlock refuses it, /proc not being a write root; with ABI >= 6,
-- signal 0 to the sandbox's pid 1 (outside the command's Landlock domain)
-- fails too (signal scope).  The workspace write is the positive control.
-- enforcement.landlock_abi must be > 0 and no more than the kernel's ABI.
-- Classes: Landlock (or its signal scope) not in effect is `not_applied`
-- (`no_signal_scope`), hardening - the mounts still confine, nothing
-- beyond the grant is seen; in effect but reported 0 or not at all is
-- `not_reported`, and reported but not in effect `not_enforced`: reporting.
-- The host's ABI is read on the host, with landlock_create_ruleset(NULL, 0,
-- VERSION) (syscall 444 on every Linux architecture), through perl's
-- syscall() because the harness has no primitive for it.  A host without
-- Landlock skips.
local function host_abi()
  local r = sp.spawn { argv = { "perl", "-e", "my $v = syscall(444, 0, 0, 1); print $v < 0 ? 0 : $v" },
                       timeout_ms = 5000 }
  if not (r and r.code == 0) then return nil end
  return tonumber(r.stdout)
end

return scenario {
  id = "fs.landlock_applied",
  clauses = { "FS-6", "OUT-4" },
  claim = "when the kernel has Landlock, the runner applies it - a write the mounts allow is refused - and reports the ABI it used",
  expect = { linux = { "applied" },
             macos = { unsupported = "Landlock is Linux only" },
             windows = { "not_applicable" } },
  impact = { not_applied = "hardening", no_signal_scope = "hardening", not_reported = "reporting", not_enforced = "reporting",
             overstated = "reporting", unverifiable = "reporting", ["refused_otherwise:*"] = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local abi = host_abi()
    if not abi then t:skip("cannot read the host's Landlock ABI (perl is missing)") end
    if abi <= 0 then t:skip("Landlock unavailable in this kernel") end
    local r = t:ran(t:sandbox { probe = {
      { "write", t.ws .. "/control", "ok" },                         -- positive control
      { "mountinfo", "/proc", as = "proc" },
      { "write", "/proc/self/comm", "sandproof-probe", as = "comm" },
      { "kill", 1, 0, as = "kill1" },
    } })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local e = r.outcome.enforcement
    local used = type(e) == "table" and tonumber(e.landlock_abi) or nil
    local m, comm, kill1 = r.op.proc or {}, r.op.comm or {}, r.op.kill1 or {}
    local proc_rw = m.ok and m.fstype == "proc" and m.options and (","  .. m.options .. ","):find(",rw,") ~= nil
    t:note("note", string.format("host Landlock ABI %d, enforcement.landlock_abi %s; /proc %s %s; " ..
      "write /proc/self/comm %s; kill(1, 0) %s", abi, tostring(used), tostring(m.fstype), tostring(m.options),
      comm.ok and "ok" or tostring(comm.errno), kill1.ok and "ok" or tostring(kill1.errno)))
    if used and used > abi then return "overstated" end
    -- without a read-write /proc the refusal could be the mount layer's
    if not proc_rw then return "unverifiable" end
    -- the write went through: Landlock is not confining the command
    -- (hardening: the mounts still are), or is said to and is not
    if comm.ok then return (used and used > 0) and "not_enforced" or "not_applied" end
    if comm.errno ~= "EACCES" then return "refused_otherwise:" .. tostring(comm.errno) end
    if not used or used <= 0 then return "not_reported" end
    if used >= 6 and kill1.ok then return "no_signal_scope" end
    return "applied"
  end,
}
