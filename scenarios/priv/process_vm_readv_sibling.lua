-- PRIV-2/PRIV-3: the command cannot read another process's memory with
-- process_vm_readv, not even a process it started itself (a `sleep`
-- forked by the shell that then execs the probe: same user, the probe's
-- own child).  The call fails with EPERM, and when the runner reports
-- denials the outcome names process_vm_readv.  Positive control in the
-- same probe: kill(pid, 0) reaches the target.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.process_vm_readv_sibling",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot read the memory of a process it started with process_vm_readv (EPERM)",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  run = function(t)
    local r = t:ran(t:sandbox { command = { "sh", "-c",
      'sleep 20 & exec "$0" kill $! 0 -- process_vm_readv $! -- kill $! 9', t.paths.probe } })
    local k, p = r.probe[1], r.probe[2]
    if not (k and p) then return "error" end
    t:note("note", string.format("kill 0 ok=%s errno=%s; process_vm_readv addr=%s ok=%s errno=%s bytes=%s",
      tostring(k.ok), tostring(k.errno), tostring(p.addr), tostring(p.ok), tostring(p.errno),
      tostring(p.bytes)))
    if p.ok then return "read" end
    if not k.ok then
      t:note("note", "positive control failed: the target could not be signalled")
      return "control_failed"
    end
    if p.errno ~= "EPERM" then return "errno_" .. tostring(p.errno) end
    if not reported(r.outcome, "process_vm_readv") then return "unreported" end
    return "refused"
  end,
}
