-- runners/none.lua - the negative control: runs the command with no
-- sandbox at all.  Every confinement scenario must FAIL against it, which
-- proves the scenarios can fail.  Safety: it really performs every attack,
-- so it runs in a private mount namespace (mount-table attacks cannot
-- touch the host's mounts, file writes still land where the oracle looks),
-- without a controlling terminal, inside the harness's temp directory, and
-- on the network only inside the lab.
local M = { name = "none" }
-- It can be asked everything a command-line request holds (and enforces
-- none of it: limits and bounds are ignored); it has no runtime roots, no
-- gc, no host check and no request document to read.
M.capabilities = { gc = false, doctor = false, runtime_roots = false, raw_request = false,
                   limits = true, output_limit = true, block_unix_sockets = true,
                   hold = true, fault = true }
M.reasons = { raw_request = "it takes no request", doctor = "it checks nothing" }

function M.available() return true end
function M.version() return "none (no sandbox)" end

function M.sandbox(t, spec)
  local env = {}
  for k, v in pairs(spec.env or {}) do env[#env + 1] = k .. "=" .. v end
  -- No timeout of its own either: the harness only stops it a little after
  -- the request's timeout, and reports how it ended, never "timed_out".
  -- Without a lab it gets an empty network namespace of its own, so an
  -- unconfined attack can never send a packet off this machine.
  if not t._ctx.lab then t:lab() end
  local r = t:spawn { argv = spec.command, cwd = spec.cwd, env = env, stdin = spec.stdin,
                      timeout_ms = (spec.timeout_ms or 30000) + 2000, private_mounts = true,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal,
                      signal_when = spec.signal_when }
  local kind = r.code == 0 and "success" or "application_failure"
  return { outcome = { kind = kind, exit = { code = r.code, signal = r.signal },
                       stdout = r.stdout, stderr = r.stderr, denials = {} },
           hold_total = r.hold_total, hold_hit = r.hold_hit, hold_note = r.hold_note,
           fault_calls = r.fault_calls, fault_failed = r.fault_failed, harness_killed = r.leftovers,
           maxrss_kib = r.maxrss_kib, cpu_ms = r.cpu_ms }
end

return M
