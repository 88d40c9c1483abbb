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
                   hold = true, fault = true, sessions = true }
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

-- Sessions, the unconfined way (the negative control of SESS): the command
-- itself on pipes, no bound on the output a call returns (every byte since
-- the last call, kept in the harness), `interrupt` a SIGTERM to the
-- command's own process only, remembered for that response only, nothing
-- ever forgotten or pruned, no pseudo-terminal.  Options are ignored.
local function none_collect(s, wait_ms)
  local parts, deadline = {}, sp.now_ms() + math.floor(tonumber(wait_ms) or 0)
  while true do
    local left = deadline - sp.now_ms()
    local chunk = s.c:read(left > 0 and math.floor(left) or 0)
    if chunk == nil then -- EOF: the command's output is over
      local w = s.c:wait(2000)
      if w then s.exited, s.status = true, w end
      break
    end
    parts[#parts + 1] = chunk
    if left <= 0 then break end
  end
  return table.concat(parts)
end

local function none_state(s, out, interrupted)
  local o = s.exited and { kind = (s.status.code == 0) and "success" or "application_failure",
                           exit = { code = s.status.code, signal = s.status.signal }, denials = {} }
  return { session = s.id, output = out, output_encoding = "utf-8", truncated = false,
           dropped_bytes = 0, exited = s.exited or false, interrupted = interrupted or false,
           tty = false, outcome = o or sp.null }
end

function M.session(t, o)
  if o.pid_namespace then return { unsupported = "the none runner has no session server to put in a pid namespace" } end
  local sessions, next_id = {}, 1
  local ops = {}
  function ops.start(m)
    local req, env = m.request, {}
    for k, v in pairs(req.env or {}) do env[#env + 1] = k .. "=" .. v end
    local argv = { "/bin/sh", "-c", 'exec "$@"', "sh" }
    for _, a in ipairs(req.command) do argv[#argv + 1] = a end
    local c, err = sp.coproc { argv = argv, env = env, cwd = req.cwd }
    if not c then return { error = "start: " .. tostring(err) } end
    local s = { id = next_id, c = c }
    sessions[s.id], next_id = s, next_id + 1
    if req.stdin and req.stdin ~= "" then c:send(req.stdin) end
    return none_state(s, none_collect(s, m.yield_ms))
  end
  function ops.continue(m)
    local s = sessions[m.session]
    if not s then return { error = "continue.session: no session " .. tostring(m.session) } end
    if m.interrupt then s.c:signal("SIGTERM") end
    if m.input and m.input ~= "" then s.c:send(m.input) end
    if m.eof then s.c:close_stdin() end
    return none_state(s, none_collect(s, m.yield_ms), m.interrupt)
  end
  function ops.stop(m)
    local s = sessions[m.session]
    if not s then return { error = "stop.session: no session " .. tostring(m.session) } end
    s.c:signal("SIGTERM")
    return none_state(s, none_collect(s, 2000), true)
  end
  function ops.stop_all()
    local ids = {}
    for id, s in pairs(sessions) do s.c:signal("SIGTERM"); none_collect(s, 100); ids[#ids + 1] = id end
    return { stopped = ids, exited = true }
  end
  function ops.list()
    local l = {}
    for id, s in pairs(sessions) do l[#l + 1] = { session = id, exited = s.exited or false } end
    return { sessions = l }
  end
  return {
    call = function(line)
      local m = sp.json_decode(line)
      local f = type(m) == "table" and ops[m.op]
      if not f then return sp.json_encode { error = "op: unknown" } end
      return sp.json_encode(f(m))
    end,
    -- the session "server" is the harness itself
    rss_kib = function()
      local st = sp.read("/proc/self/status") or ""
      return tonumber(st:match("VmRSS:%s*(%d+)"))
    end,
    close = function()
      for _, s in pairs(sessions) do s.c:signal("SIGKILL"); s.c:wait(5000) end
      sessions = {}
    end,
  }
end

return M
