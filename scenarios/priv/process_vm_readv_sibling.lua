-- PRIV-2/PRIV-3: the command cannot read another process's memory with
-- process_vm_readv, not even a process it started itself (a `sleep`
-- forked by the shell that then execs the probe: same user, the probe's
-- own child).  The call fails with EPERM, and when the runner reports
-- denials the outcome names process_vm_readv.  Positive control in the
-- same probe: kill(pid, 0) reaches the target (lib.sibling_refused).
local lib = require "sandproof.lib"

return scenario {
  id = "priv.process_vm_readv_sibling",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot read the memory of a process it started with process_vm_readv (EPERM)",
  expect = { linux = { "refused" },
             macos = { unsupported = "process_vm_readv is Linux only" },
             windows = { unsupported = "the target is started by a POSIX shell (sh, sleep &), which native Windows lacks, and process_vm_readv is a Linux call" } },
  impact = { read = "hardening", ["errno_*"] = "reporting", unreported = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t) return lib.sibling_refused(t, "process_vm_readv", "read") end,
}
