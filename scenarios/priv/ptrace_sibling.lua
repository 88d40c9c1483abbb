-- PRIV-2/PRIV-3: the command cannot ptrace another process, not even one
-- it started itself (here a `sleep` forked by the shell that then execs
-- the probe, so the target is the probe's own child: nothing but the
-- sandbox stands in the way, same user, a descendant).  PTRACE_ATTACH
-- fails with EPERM, and when the runner reports denials the outcome names
-- ptrace.  Positive control in the same probe: kill(pid, 0) reaches the
-- target, so EPERM is not "no such process".
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.ptrace_sibling",
  clauses = { "PRIV-2", "PRIV-3" },
  claim = "the command cannot ptrace a process it started (EPERM, reported as a ptrace denial)",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  run = function(t)
    local r = t:ran(t:sandbox { command = { "sh", "-c",
      'sleep 20 & exec "$0" kill $! 0 -- ptrace $! -- kill $! 9', t.paths.probe } })
    local k, p = r.probe[1], r.probe[2]
    if not (k and p) then return "error" end
    t:note("note", string.format("kill 0 ok=%s errno=%s; ptrace pid=%s ok=%s errno=%s step=%s",
      tostring(k.ok), tostring(k.errno), tostring(p.pid), tostring(p.ok), tostring(p.errno),
      tostring(p.step)))
    if p.ok then return "attached" end
    if not k.ok then
      t:note("note", "positive control failed: the target could not be signalled")
      return "control_failed"
    end
    if p.errno ~= "EPERM" then return "errno_" .. tostring(p.errno) end
    if not reported(r.outcome, "ptrace") then return "unreported" end
    return "refused"
  end,
}
