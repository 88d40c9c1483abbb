-- PRIV-2/PRIV-3: the command cannot ptrace another process, not even one
-- it started itself (here a `sleep` forked by the shell that then execs
-- the probe, so the target is the probe's own child: nothing but the
-- sandbox stands in the way, same user, a descendant).  PTRACE_ATTACH
-- fails with EPERM, and when the runner reports denials the outcome names
-- ptrace.  Positive control in the same probe: kill(pid, 0) reaches the
-- target, so EPERM is not "no such process" (lib.sibling_refused).
local lib = require "sandproof.lib"

return scenario {
  id = "priv.ptrace_sibling",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot ptrace a process it started (EPERM, reported as a ptrace denial)",
  expect = { linux = { "refused" },
             macos = { unsupported = "the probe's ptrace op is Linux's PTRACE_ATTACH; macOS goes through task_for_pid, not probed yet" },
             windows = { unsupported = "the target is started by a POSIX shell (sh, sleep &), which native Windows lacks, and the probe's ptrace is Linux's PTRACE_ATTACH" } },
  impact = { attached = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t) return lib.sibling_refused(t, "ptrace", "attached") end,
}
