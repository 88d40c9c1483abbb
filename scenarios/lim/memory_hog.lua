-- A memory hog under a memory limit the scenario sets itself (64 MiB): the
-- probe touches 16 MiB (positive control: it fits), then 256 MiB.  Where a
-- memory cgroup can be made (cgroup v1 memory as root here; v2 with memory
-- delegated) the kernel must stop the hog: the host-side oracle is the
-- kernel's peak resident size of every process of the run (the harness's
-- rusage of the runner and all it reaped), which must stay under 96 MiB,
-- and the outcome must say limit_exceeded, limit memory_bytes.  Where none
-- can be made, the run must be refused (limits:memory_bytes) with nothing
-- run - never a run without the limit.  Safety: the hog is bounded by its
-- own argument (256 MiB), which is what the unconfined control runs into.
local MIB = 1024 * 1024

return scenario {
  id = "lim.memory_hog",
  clauses = { "LIM-5", "LIM-7", "SETUP-1" },
  claim = "a memory_bytes limit stops a memory hog, or the run is refused where no memory cgroup can be made",
  expect = { linux = { "bounded", "refused" },
             macos = { "bounded", "refused" },
             windows = { "bounded", "refused" } },
  impact = { ran_anyway = "hardening", unbounded = "escape", ["not_reported:*"] = "reporting", ["refused_at:*"] = "reporting", refused_wrongly = "fidelity" },
  control = "proc.exit_code_exact",
  exclusive = "a resource limit: a memory cgroup, and the unconfined control takes 256 MiB of the machine's memory",
  run = function(t)
    local started = t.ws .. "/started"
    local p = t.profiles.workspace_write()
    p.limits = { memory_bytes = 64 * MIB }
    local r = t:sandbox { profile = p, timeout_ms = 60000,
                          probe = { { "write", started, "x" }, { "alloc", 16 * MIB, as = "fits" },
                                    { "alloc", 256 * MIB, as = "hog" } } }
    local o = r.outcome
    -- where this host certainly offers one: a cgroup v1 memory hierarchy, as root
    local memcg = sp.getuid() == 0 and sp.exists("/sys/fs/cgroup/memory/cgroup.procs")
    t:note("note", string.format("kind %s limit %s step %s; peak RSS of the run %s KiB; v1 memory cgroup for root: %s",
      tostring(o.kind), tostring(o.limit), tostring(o.setup_error and o.setup_error.step),
      tostring(r.maxrss_kib), tostring(memcg)))
    if o.kind == "sandbox_setup_failure" then
      if sp.exists(started) then return "ran_anyway" end
      if o.setup_error.step ~= "limits:memory_bytes" then return "refused_at:" .. tostring(o.setup_error.step) end
      return memcg and "refused_wrongly" or "refused"
    end
    t:ran(r)
    if not (r.op.fits and r.op.fits.ok) then return "control_failed" end
    if (r.op.hog and r.op.hog.ok) or (r.maxrss_kib or 0) > 96 * 1024 then return "unbounded" end
    if o.kind ~= "limit_exceeded" or o.limit ~= "memory_bytes" then return "not_reported:" .. tostring(o.kind) end
    return "bounded"
  end,
}
