-- A bounded fork bomb under a pids limit the scenario sets itself: with
-- pids = 32 the probe forks up to 200 idle children.  The oracle is the
-- host's process table, taken while the probe sleeps after the bomb (a
-- hold on its first sleep): processes whose command line holds this run's
-- marker (the probe and its children) must number at most 32, and fork
-- must have failed with EAGAIN.  The positive control: fork works at all
-- (some children were made).  The command's own status stands: a refused
-- fork is not a kill, so the run completes.  Safety: the bomb is bounded
-- by its own argument (200) too, which is what the unconfined control
-- runs into.
local PIDS, BOMB = 32, 200

return scenario {
  id = "lim.pids_fork_bomb",
  clauses = { "LIM-3", "LIM-7" },
  claim = "under a pids limit a fork bomb gets no more processes than the limit, and the command goes on",
  expect = { linux = { "bounded" },
             macos = { unsupported = "no syscall interposition on macOS: the census is taken during a seccomp hold; and RLIMIT_NPROC is per user there, no per-run pids bound" },
             windows = { unsupported = "the census is taken during a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { unbounded = "escape", not_observed = "reporting", ["wrong_errno:*"] = "reporting", ["run_failed:*"] = "fidelity" },
  control = "proc.exit_code_exact",
  exclusive = "a resource limit: a pids bound, and the unconfined control forks 200 processes that count against the user's process limit for every other pair",
  run = function(t)
    local marker = string.format("sandproof-bomb-%d-%d", sp.getpid(), t.seed)
    local p = t.profiles.workspace_write()
    p.limits = { pids = PIDS }
    local seen
    local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1, comm = "sandproof-probe",
                       sandbox = { profile = p, probe = { { "forkn", BOMB, marker, as = "bomb" }, { "sleep", 50 } } },
                       action = function() seen = #sp.census { marker = marker }.processes end }
    t:ran(r)
    local f, o = r.op.bomb, r.outcome
    t:note("census", string.format("processes with the marker while the probe slept: %s", tostring(seen)))
    t:note("note", string.format("forkn: forked %s, %s; kind %s; pids %s; limit_events %s",
      tostring(f and f.forked), f and (f.ok and "all" or tostring(f.errno)) or "missing", tostring(o.kind),
      sp.json_encode(o.enforcement and o.enforcement.limits and o.enforcement.limits.pids or sp.null),
      sp.json_encode(o.limit_events or sp.null)))
    if not (f and (f.forked or 0) > 0) then return "control_failed" end
    if seen == nil then return "not_observed" end
    if seen > PIDS or f.ok then return "unbounded" end
    if f.errno ~= "EAGAIN" then return "wrong_errno:" .. tostring(f.errno) end
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    return "bounded"
  end,
}
