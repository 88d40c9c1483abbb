-- cpu_seconds stops a busy loop: with cpu_seconds 1 the probe spins 200 ms
-- (positive control: it fits), then tries to spin 8 s.  It must be killed
-- (the kernel's SIGXCPU) and the outcome must say limit_exceeded, limit
-- cpu_seconds.  Host-side oracle: the kernel's CPU time of every process
-- of the run (the harness's rusage of the runner and all it reaped) stays
-- under 5 s, where the unconfined control uses 8.  And a SIGXCPU the
-- command sends itself, far from its limit, is not the limit: that run is
-- an application_failure by SIGXCPU, not limit_exceeded.
return scenario {
  id = "lim.cpu_time",
  clauses = { "LIM-6", "LIM-7" },
  claim = "cpu_seconds stops a busy loop and the outcome names the limit",
  expect = { linux = { "stopped" }, macos = { "stopped" }, windows = { "stopped" } },
  impact = { not_stopped = "escape", ["not_reported:*"] = "reporting", self_signal_taken_for_limit = "reporting" },
  control = "proc.exit_code_exact",
  exclusive = "a resource limit: CPU seconds, and the unconfined control spins 8 s of CPU the other pairs would share",
  run = function(t)
    local p = t.profiles.workspace_write()
    p.limits = { cpu_seconds = 1 }
    local r = t:ran(t:sandbox { profile = p, timeout_ms = 120000, probe = {
      { "spin", 200, as = "short" }, { "spin", 8000, as = "long" } } })
    local o, a, b = r.outcome, r.op.short, r.op.long
    t:note("note", string.format("spin 200: %s; spin 8000: %s; kind %s limit %s signal %s; run CPU %s ms",
      a and tostring(a.cpu_ms) or "missing", b and tostring(b.cpu_ms) or "killed",
      tostring(o.kind), tostring(o.limit), tostring(o.exit and o.exit.signal), tostring(r.cpu_ms)))
    if not (a and a.ok) then return "control_failed" end
    if b or (r.cpu_ms or 0) >= 5000 then return "not_stopped" end
    if o.kind ~= "limit_exceeded" or o.limit ~= "cpu_seconds" then return "not_reported:" .. tostring(o.kind) end
    p.limits = { cpu_seconds = 60 }
    local s = t:ran(t:sandbox { profile = p, probe = { { "signal", "XCPU" } } }).outcome
    t:note("note", string.format("self-sent SIGXCPU under cpu_seconds 60: kind %s limit %s signal %s",
      tostring(s.kind), tostring(s.limit), tostring(s.exit and s.exit.signal)))
    if s.kind == "limit_exceeded" then return "self_signal_taken_for_limit" end
    if s.kind ~= "application_failure" or (s.exit and s.exit.signal) ~= 24 then return "control_failed" end
    return "stopped"
  end,
}
