-- sandproof.peer - what the peer adapters (harness/runners/{bwrap,firejail,
-- codex,srt}.lua) share: the contract's defaults, signal numbers, the
-- requests no peer can take, the integrator's watchdog, the outcome read
-- from a status and stderr, and small path and text helpers.
local sp = require "sp"

local M = {}

M.SYS_PATH = "/usr/local/bin:/usr/bin:/bin"
-- the contract's default protected_metadata_names (docs/CONTRACT.md, REQ)
M.DEFAULT_PROTECTED = { ".git/hooks", ".git/config", ".agents", ".zero" }
-- the signals a harness may send the runner (cancel, dies-with-runner)
M.SIGNALS = { SIGHUP = 1, SIGINT = 2, SIGKILL = 9, SIGTERM = 15 }
-- strerror texts the peers end their messages with, as errno names (OUT-6)
M.STRERROR = {
  ["No such file or directory"] = "ENOENT", ["Not a directory"] = "ENOTDIR",
  ["Permission denied"] = "EACCES", ["Exec format error"] = "ENOEXEC",
  ["Operation not permitted"] = "EPERM", ["Is a directory"] = "EISDIR",
  ["Too many levels of symbolic links"] = "ELOOP", ["Device or resource busy"] = "EBUSY",
  ["No space left on device"] = "ENOSPC", ["Invalid argument"] = "EINVAL",
  ["Read-only file system"] = "EROFS", ["File exists"] = "EEXIST",
  ["Function not implemented"] = "ENOSYS", ["Out of memory"] = "ENOMEM",
  ["Cannot allocate memory"] = "ENOMEM",
}

-- A table that encodes as a JSON array even when empty.
function M.array(t) return setmetatable(t or {}, { __jsonarray = true }) end

local function depth(p)
  local _, n = p:gsub("/", "")
  return n
end

-- Paths sorted parents first, so a later mount never hides an earlier one
-- it should sit on top of.
function M.by_depth(list)
  table.sort(list, function(a, b)
    if depth(a) ~= depth(b) then return depth(a) < depth(b) end
    return a < b
  end)
  return list
end

-- An executable by name: in `first` (a directory) if given, then on the
-- harness's PATH.
function M.find(name, first)
  if first and sp.exists(first .. "/" .. name) then return first .. "/" .. name end
  for d in (os.getenv("PATH") or M.SYS_PATH):gmatch("[^:]+") do
    if sp.exists(d .. "/" .. name) then return d .. "/" .. name end
  end
  return nil
end

-- coreutils' timeout(1): no peer has a timeout an integrator can tell
-- apart.  /usr/bin/timeout on Linux; Homebrew's coreutils on macOS
-- (timeout, or gtimeout without the gnubin names).
M.TIMEOUT = sp.exists("/usr/bin/timeout") and "/usr/bin/timeout" or M.find("timeout") or
            M.find("gtimeout") or "/usr/bin/timeout"

-- The host's temp directory as Seatbelt sees it: /private/tmp where /tmp
-- is a link to it (macOS; a policy path must be canonical there), else /tmp.
function M.tmp_root()
  local st = sp.lstat("/tmp")
  if st and st.type == "link" and sp.exists("/private/tmp") then return "/private/tmp" end
  return "/tmp"
end

-- Where ci/peers-npm.sh installed the npm peers (codex, srt).
function M.npm_prefix() return os.getenv("SANDPROOF_PEERS") or "/opt/sandproof-peers" end

-- The first of candidates that exists, or the path in environment
-- variable `var` when set (nil when that does not exist).
function M.binary(var, candidates)
  local env = os.getenv(var)
  if env and env ~= "" then return sp.exists(env) and env or nil end
  for _, p in ipairs(candidates) do
    if sp.exists(p) then return p end
  end
  return nil
end

-- A peer's capabilities (context.CAPABILITIES) and the reasons for those it
-- lacks: what no peer has - runtime roots and their eviction, a host
-- check, a contract request document, resource limits, an output bound -
-- and, in `lacks` ({ capability = reason }), what this one lacks too.
function M.capabilities(name, lacks)
  local caps = { gc = false, doctor = false, runtime_roots = false, raw_request = false,
                 limits = false, output_limit = false, block_unix_sockets = true,
                 hold = true, fault = true, sessions = false }
  local reasons = {
    sessions = name .. " keeps no retained interactive sessions to drive",
    raw_request = name .. " takes no contract request",
    limits = "an integrator's own cgroups or rlimits around " .. name ..
             " would be the integrator's sandbox, not " .. name .. "'s",
    output_limit = "the command writes to descriptors " .. name ..
                   " does not capture, so output_limit_bytes cannot be asked of it",
  }
  for k, why in pairs(lacks or {}) do caps[k], reasons[k] = false, why end
  return caps, reasons
end

-- Run a peer's argv through t:spawn, always inside a lab (no uplink: this
-- host sits on TEST-NET-1 itself, and a peer may share the namespace it
-- starts in or run proxies), except on macOS (below).  The integrator's watchdog is timeout(1):
-- TERM at spec.timeout_ms (default 30 s; 0: none), KILL 2 s later - but not
-- when the harness signals the runner itself (cancel, SIGKILL: PROC-4/10),
-- for then the signalled process must be the peer.  The harness's own
-- timeout, 10 s later, is a backstop (runner_failed).  o: cwd, env, note
-- (record the command line as evidence).
function M.spawn(t, spec, argv, o)
  local tmo = spec.timeout_ms or 30000
  if tmo > 0 and not (spec.signal_after_ms or spec.signal_when) then
    local w = { M.TIMEOUT, "--verbose", "-k", "2", string.format("%.3f", tmo / 1000) }
    for _, x in ipairs(argv) do w[#w + 1] = x end
    argv = w
  end
  if o.note then t:note("note", "argv: " .. table.concat(argv, " "):sub(1, 4000)) end
  -- macOS has no network namespace: there the peer shares the host's
  -- network, and the scenarios that macOS runs reach only the host's own
  -- addresses (those aiming at TEST-NET are unsupported there)
  if not t._ctx.lab and t.os ~= "macos" then t:lab() end
  return t:spawn { argv = argv, cwd = o.cwd, env = o.env, stdin = spec.stdin,
                   timeout_ms = (tmo > 0 and tmo or 600000) + 10000,
                   signal_after_ms = spec.signal_after_ms, signal = spec.signal,
                      signal_when = spec.signal_when }
end

-- The outcome from what a peer gives: a status and stderr.  Shared rules,
-- in order: the peer outlived its watchdog (runner_failed); it could not
-- be started (sandbox_setup_failure, step from the spawn error); timeout(1)
-- itself failed (status 125-127, "timeout: MESSAGE"); status 0 (success);
-- status 128+N, or death by N, after the harness sent signal N (cancelled:
-- the peer stopped on it; whether the command was killed too is the
-- scenario's own host-side check); 124 with timeout(1)'s
-- "sending signal" line, removed from stderr (timed_out).  Anything else
-- is application_failure with the status as given, unless own(o, r, last)
-- - the peer's own failure messages, its last stderr line `last` - says
-- otherwise.  A command printing a peer's exact messages would be misread.
function M.outcome(name, spec, r, own)
  local stderr = r.stderr or ""
  local timed_out = stderr:find("timeout: sending signal", 1, true) ~= nil
  stderr = stderr:gsub("[^\n]*timeout: sending signal [^\n]*\n?", "")
  local o = { kind = "application_failure", exit = { code = r.code, signal = r.signal },
              stdout = r.stdout or "", stderr = stderr, denials = M.array() }
  local last = M.last_line(stderr) or ""
  local watchdog = (r.code == 125 or r.code == 126 or r.code == 127) and stderr:match("^%S*timeout: ([^\n]*)")
  local cancel_signo = spec.signal_after_ms and M.SIGNALS[spec.signal or "SIGTERM"]
  if r.timed_out then
    o.kind = "runner_failed"
  elseif r.setup_error then
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = r.setup_error:match("^(%S+):") or "spawn",
                      errno = r.setup_error:match(": (%u+)$"), detail = name .. " not started: " .. r.setup_error }
  elseif watchdog then
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = "spawn", errno = M.STRERROR[watchdog:match(": ([^:]+)$") or ""], detail = watchdog }
  elseif r.code == 0 then
    o.kind = "success"
  elseif cancel_signo and cancel_signo ~= 9 and (r.code == 128 + cancel_signo or r.signal == cancel_signo) then
    o.kind, o.cancel_signal = "cancelled", spec.signal or "SIGTERM"
  elseif r.code == 124 and timed_out and not spec.signal_after_ms then
    o.kind = "timed_out"
  elseif own then
    own(o, r, last)
  end
  return o
end

-- The adapter's answer to t:sandbox: the outcome and what the harness saw
-- of the peer's process (harness_killed: processes still alive after it
-- ended, which the harness killed - residue).
function M.result(o, r)
  return { outcome = o, runner_exit = r.code, runner_signal = r.signal,
           hold_total = r.hold_total, hold_hit = r.hold_hit,
           fault_calls = r.fault_calls, fault_failed = r.fault_failed, runner_stderr = r.stderr,
           harness_killed = r.leftovers, maxrss_kib = r.maxrss_kib, cpu_ms = r.cpu_ms }
end

-- The last non-empty line of s (a peer's own error is its last stderr line).
function M.last_line(s)
  local last
  for l in (s or ""):gmatch("[^\n]+") do last = l end
  return last
end

return M
