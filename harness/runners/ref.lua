-- runners/ref.lua - sandproof-ref, the reference runner, driven as a black
-- box through its documented CLI: `sandproof-ref run --request -` with the
-- contract request on stdin and the outcome JSON on stdout.
local sp = require "sp"

local M = { name = "ref" }
-- the reference runner implements the whole contract
M.capabilities = { gc = true, doctor = true, runtime_roots = true, raw_request = true, limits = true,
                   output_limit = true, block_unix_sockets = true, hold = true, fault = true,
                   sessions = true }

function M.available(paths)
  if not (paths and paths.ref and sp.exists(paths.ref)) then
    return false, "sandproof-ref not found"
  end
  return true
end

function M.version(paths)
  local r = sp.spawn { argv = { paths.ref, "--version" }, timeout_ms = 5000 }
  return r and r.code == 0 and r.stdout:gsub("%s+$", "") or "unknown"
end

function M.sandbox(t, spec)
  local req = {
    version = 1, command = spec.command, cwd = spec.cwd, env = spec.env,
    stdin = spec.stdin, timeout_ms = spec.timeout_ms or 30000,
    output_limit_bytes = spec.output_limit_bytes, profile = spec.profile,
  }
  -- raw_request: send exactly this text (malformed-request scenarios)
  local r = t:spawn { argv = { t.paths.ref, "run", "--request", "-" },
                      stdin = spec.raw_request or sp.json_encode(req),
                      timeout_ms = (spec.timeout_ms or 30000) + 30000,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal,
                      signal_when = spec.signal_when }
  -- the outcome is the JSON on stdout, whatever the exit status says
  local outcome = r.stdout ~= "" and sp.json_decode(r.stdout) or nil
  if type(outcome) ~= "table" or not outcome.kind then outcome = nil end
  -- captured streams are lossless: a JSON string, or base64 when the
  -- bytes are not UTF-8 text (or would cost more escaped) (OUT-7)
  for _, k in ipairs(outcome and { "stdout", "stderr" } or {}) do
    if outcome[k .. "_encoding"] == "base64" then
      local bytes, err = sp.base64_decode(outcome[k])
      if not bytes then t:error("outcome " .. k .. ": " .. tostring(err)) end
      outcome[k] = bytes
    end
  end
  -- A platform layer without the enforcement asked for refuses with the
  -- typed setup failure step "unsupported" (docs/CONTRACT.md, SETUP-1):
  -- the runner cannot be asked this on this OS.
  local se = outcome and outcome.kind == "sandbox_setup_failure" and outcome.setup_error
  if type(se) == "table" and se.step == "unsupported" then
    return { unsupported = tostring(se.detail), outcome = outcome, runner_exit = r.code }
  end
  if not outcome then
    -- no outcome: the request was refused or the runner died; make it a
    -- visible outcome rather than a guess
    outcome = { kind = r.code == 2 and "request_refused" or "runner_failed",
                exit = { code = r.code, signal = r.signal }, stdout = "",
                stderr = r.stderr, denials = {} }
  end
  -- harness_killed: processes the harness itself had to kill after the
  -- runner ended (its residue; a runner that holds PROC-10 leaves none)
  -- maxrss_kib, cpu_ms: the kernel's account of the runner and everything
  -- it reaped (the sandbox's processes), as the harness saw it
  return { outcome = outcome, runner_exit = r.code, runner_signal = r.signal,
           hold_total = r.hold_total, hold_hit = r.hold_hit, hold_note = r.hold_note,
           fault_calls = r.fault_calls, fault_failed = r.fault_failed, runner_stderr = r.stderr,
           harness_killed = r.leftovers, maxrss_kib = r.maxrss_kib, cpu_ms = r.cpu_ms }
end

-- A session server (SESS): `sandproof-ref serve`, one request line in, one
-- response line out (sandproof.sessions).
function M.session(t, o)
  -- built for the linux platform only (ref/serve_none.c refuses elsewhere)
  if sp.os ~= "linux" then
    return { unsupported = "unsupported on " .. sp.os .. ": sandproof-ref serve is built for the linux platform only" }
  end
  local argv = { t.paths.ref, "serve" }
  for _, k in ipairs { "max_sessions", "retain_ms", "output_bytes" } do
    if o[k] then
      argv[#argv + 1] = "--" .. k:gsub("_", "-")
      argv[#argv + 1] = tostring(o[k])
    end
  end
  if o.pid_namespace then
    -- the server as pid 1 of a user and pid namespace of the harness's
    -- (unshare forks it); its host pid is unshare's only child
    table.insert(argv, 1, "--mount-proc")
    table.insert(argv, 1, "-Urpf")
    table.insert(argv, 1, sp.exists("/usr/bin/unshare") and "/usr/bin/unshare" or "/bin/unshare")
  end
  local c, err = sp.coproc { argv = argv, cwd = t.ws }
  if not c then t:error("serve: " .. tostring(err)) end
  return {
    call = function(line, wait_ms)
      if not c:send(line .. "\n") then return nil end
      return c:read_line(wait_ms)
    end,
    rss_kib = function() return c:rss_kib() end,
    close = function()
      -- stdin's end stops every session; SIGKILL only past 30 s
      c:close_stdin()
      if not c:wait(30000) then c:signal("SIGKILL"); c:wait(5000) end
    end,
    server_pid = function()
      local p = c:pid()
      if o.pid_namespace then
        local kids = sp.read(string.format("/proc/%d/task/%d/children", p, p)) or ""
        return tonumber(kids:match("%d+"))
      end
      return p
    end,
  }
end

-- The host check (SETUP-4): `sandproof-ref doctor`, through t:spawn so a
-- scenario's fault applies to it too.  Returns { exit = n, text = stdout }.
function M.doctor(t)
  local r = t:spawn { argv = { t.paths.ref, "doctor" }, timeout_ms = 30000 }
  return { exit = r.code, text = r.stdout }
end

local function gc_argv(t, o)
  return { t.paths.ref, "gc", "--parent", o.parent, "--max-age", tostring(o.max_age_s or 0),
           "--max-roots", tostring(o.max_roots or 0), "--json" }
end

local function gc_parse(r)
  local j = r and r.code == 0 and sp.json_decode(r.stdout or "") or nil
  if not j then return { ran = false, summary = r and r.stdout or "" } end
  return { ran = j.ok == true, evicted = j.evicted_total or 0, skipped = j.skipped_total or 0,
           summary = string.format("evicted %d, skipped %d", j.evicted_total or 0,
                                   j.skipped_total or 0) }
end

-- Runtime-root eviction (RT-6): `sandproof-ref gc`, now or after delay_ms
-- in the background (so it can run while a sandboxed command holds a lease).
-- The delay is the harness's (sp.spawn_bg's delay_ms), no shell: the same
-- on every OS.
function M.gc(t, o)
  return gc_parse(sp.spawn { argv = gc_argv(t, o), timeout_ms = 30000 })
end

function M.gc_async(t, o)
  local bg = assert(sp.spawn_bg { argv = gc_argv(t, o), delay_ms = o.delay_ms or 0, timeout_ms = 30000 })
  return { wait = function() return gc_parse(bg:wait()) end }
end

return M
