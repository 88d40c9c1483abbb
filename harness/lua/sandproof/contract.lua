-- sandproof.contract - the adapter of any runner that speaks the contract
-- (docs/CONTRACT.md) on its command line the way sandproof-ref does, so a
-- runner needs no Lua of its own (`--runner contract:PATH`,
-- docs/YOUR-RUNNER.md).  The built-in `ref` adapter is this module over
-- sandproof-ref: one contract client for both.
--
--   PATH run --request -           the request JSON on stdin, one outcome JSON
--                                  line on stdout (required; exit 2 and no
--                                  outcome: the request was refused, REQ-6)
--   PATH --sandproof-capabilities  the capability object (optional; or the
--                                  sidecar file PATH.capabilities.json)
--   PATH --version                 one line for the run's fingerprint (optional)
--   PATH doctor                    capability doctor: exit 0 when this host can
--                                  enforce the contract (SETUP-4)
--   PATH gc --parent P --max-age S --max-roots N --json
--                                  capability gc: runtime-root eviction (RT-6)
--   PATH serve [--max-sessions N] [--retain-ms MS] [--output-bytes N]
--                                  capability sessions: the SESS protocol
--
-- What a runner can be asked is its capability object's to say; what it
-- does not declare is the minimal set's (MINIMAL), and the context makes
-- every request or scenario needing more `unsupported` with the reason.
local sp = require "sp"
local encoded = require "sandproof.encoded"
local context = require "sandproof.context"

local M = {}

-- The capability object's format version.
M.VERSION = 1
-- The sidecar next to the program: PATH .. SIDECAR.
M.SIDECAR = ".capabilities.json"
-- What every program reading a request and printing an outcome can be
-- asked with nothing declared: a request document as raw text (it reads
-- nothing else), and the harness's hold and fault filters (the harness's
-- own doing, around any process).  Every other capability is an entry
-- point (gc, doctor, serve) or an optional part of the request (runtime
-- roots, limits, an output bound, blocking unix sockets) that a runner
-- must declare before it is asked.
M.MINIMAL = { gc = false, doctor = false, runtime_roots = false, raw_request = true,
              limits = false, output_limit = false, block_unix_sockets = false,
              hold = true, fault = true, sessions = false }

local OBJECT_KEYS = { version = true, capabilities = true, reasons = true, timeout_scale = true,
                      does_not_enforce = true }

local function sorted_caps()
  local l = {}
  for k in pairs(context.CAPABILITIES) do l[#l + 1] = k end
  table.sort(l)
  return table.concat(l, ", ")
end

-- nil, or what is wrong with d as does_not_enforce: { CLAUSE-ID = "what
-- is not enforced" } (sandproof.runners.problem checks a Lua adapter's).
function M.does_not_enforce_problem(d, where)
  if d == nil then return nil end
  if type(d) ~= "table" then return where .. ": must be an object of clause ids to reasons" end
  for k, v in pairs(d) do
    if type(k) ~= "string" or not k:match("^%u+%-%d+$") then
      return string.format("%s.%s: not a clause id (AREA-N, docs/CONTRACT.md)", where, tostring(k))
    end
    if type(v) ~= "string" or v == "" then return string.format("%s.%s: must say, as a string, what is not enforced", where, k) end
  end
end

-- The capabilities, reasons, timeout scale and clauses not enforced an
-- object gives, checked field by field: nil and "FIELD: what is wrong"
-- when it is not a capability object.  Capabilities it does not name keep
-- the minimal set's value; a reason explains a capability it declares
-- false; does_not_enforce names the clauses the runner says it does not
-- enforce (a scenario of theirs that fails says so; it still fails).
function M.capability_object(obj)
  if type(obj) ~= "table" then return nil, "not a JSON object" end
  for k in pairs(obj) do
    if not OBJECT_KEYS[k] then
      return nil, string.format("%s: unknown field (one of capabilities, does_not_enforce, reasons, " ..
                                "timeout_scale, version)", tostring(k))
    end
  end
  if obj.version ~= M.VERSION then
    return nil, string.format("version: must be %d (got %s)", M.VERSION, tostring(obj.version))
  end
  local caps = {}
  for k, v in pairs(M.MINIMAL) do caps[k] = v end
  if obj.capabilities ~= nil and type(obj.capabilities) ~= "table" then
    return nil, "capabilities: must be an object of true/false"
  end
  for k, v in pairs(obj.capabilities or {}) do
    if not context.CAPABILITIES[k] then
      return nil, string.format("capabilities.%s: unknown capability (one of %s)", tostring(k), sorted_caps())
    end
    if type(v) ~= "boolean" then return nil, string.format("capabilities.%s: must be true or false", k) end
    caps[k] = v
  end
  if obj.reasons ~= nil and type(obj.reasons) ~= "table" then
    return nil, "reasons: must be an object of strings"
  end
  local reasons = {}
  for k, v in pairs(obj.reasons or {}) do
    if caps[k] ~= false or type(v) ~= "string" or v == "" then
      return nil, string.format("reasons.%s: must explain, as a string, a capability declared false", tostring(k))
    end
    reasons[k] = v
  end
  local scale = obj.timeout_scale
  if scale ~= nil and (math.type(scale) ~= "integer" or scale < 1 or scale > 100) then
    return nil, "timeout_scale: must be an integer from 1 to 100"
  end
  local bad = M.does_not_enforce_problem(obj.does_not_enforce, "does_not_enforce")
  if bad then return nil, bad end
  return caps, reasons, scale, obj.does_not_enforce
end

-- What a runner at path declares: caps, reasons, timeout scale, where
-- they came from (the sidecar, the flag, or neither: the minimal set) and
-- the clauses it does not enforce; nil and a message naming the source and
-- the field when it is malformed.  The sidecar wins: no process is started
-- for it.
function M.read_capabilities(path)
  local side, obj, src = path .. M.SIDECAR, nil, nil
  if sp.exists(side) then
    local text, err = sp.read(side)
    if not text then return nil, side .. ": " .. tostring(err) end
    obj, src = sp.json_decode(text), side
    if obj == nil then return nil, side .. ": not JSON" end
  else
    local r, err = sp.spawn { argv = { path, "--sandproof-capabilities" }, stdin = "", timeout_ms = 10000 }
    src = path .. " --sandproof-capabilities"
    if not r then return nil, src .. ": " .. tostring(err) end
    if r.timed_out then return nil, src .. ": no answer within 10 s" end
    -- any failure means the runner does not know the flag: the minimal set
    if r.code ~= 0 then
      local reasons = {}
      local why = string.format("it declares nothing (no %s; %s exited %s)", side, src, tostring(r.code or r.signal))
      for k, v in pairs(M.MINIMAL) do if not v then reasons[k] = why end end
      local caps = {}
      for k, v in pairs(M.MINIMAL) do caps[k] = v end
      return caps, reasons, nil, "none"
    end
    obj = sp.json_decode(r.stdout or "")
    if obj == nil then return nil, src .. ": exited 0 without a JSON object on stdout" end
  end
  local caps, reasons, scale, dne = M.capability_object(obj)
  if not caps then return nil, src .. ": " .. reasons end
  for k, v in pairs(caps) do
    if not v and not reasons[k] then reasons[k] = "not declared in " .. src end
  end
  return caps, reasons, scale, src, dne
end

-- The outcome a contract runner printed, its streams decoded (OUT-7), or
-- nil when it printed none (or no contract outcome).
local function read_outcome(t, stdout)
  local outcome = stdout ~= "" and sp.json_decode(stdout) or nil
  if type(outcome) ~= "table" or not outcome.kind then return nil end
  -- captured streams are lossless: a JSON string, or base64 when the
  -- bytes are not UTF-8 text (or would cost more escaped) (OUT-7); so are
  -- the paths of the change report (OUT-8)
  for _, k in ipairs { "stdout", "stderr" } do
    local err = encoded.decode(outcome, k)
    if err then t:error("outcome " .. err) end
  end
  local cerr = encoded.decode_changes(outcome)
  if cerr then t:error("outcome " .. cerr) end
  return outcome
end

-- One run: the request on the runner's stdin, the outcome from its stdout.
-- a: the adapter's settings (bin, lab).
local function sandbox(a, t, spec)
  local req = {
    version = 1, command = spec.command, cwd = spec.cwd, env = spec.env,
    stdin = spec.stdin, timeout_ms = spec.timeout_ms or 30000,
    output_limit_bytes = spec.output_limit_bytes, profile = spec.profile,
  }
  -- Safety: a runner not our own starts in a lab (no uplink) whatever it
  -- was asked, so one that shares the network it starts in reaches
  -- nothing off this machine; macOS has no lab (peer.spawn says why).
  if a.lab and not t._ctx.lab and t.os ~= "macos" then t:lab() end
  -- raw_request: send exactly this text (malformed-request scenarios)
  local r = t:spawn { argv = { a.bin(t.paths), "run", "--request", "-" },
                      stdin = spec.raw_request or sp.json_encode(req),
                      timeout_ms = (spec.timeout_ms or 30000) + 30000,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal,
                      signal_when = spec.signal_when }
  -- the outcome is the JSON on stdout, whatever the exit status says
  local outcome = read_outcome(t, r.stdout)
  -- A runner without the enforcement asked for refuses with the typed
  -- setup failure step "unsupported" (docs/CONTRACT.md, SETUP-1): it
  -- cannot be asked this here.
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

-- A session server (SESS): `PATH serve`, one request line in, one
-- response line out (sandproof.sessions).
local function session(a, t, o)
  local argv = { a.bin(t.paths), "serve" }
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
    post = function(line) return c:send(line .. "\n") end,
    hangup = function(wait_ms)
      c:close_stdin()
      return c:wait(wait_ms) ~= nil
    end,
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

local function gc_argv(a, t, o)
  return { a.bin(t.paths), "gc", "--parent", o.parent, "--max-age", tostring(o.max_age_s or 0),
           "--max-roots", tostring(o.max_roots or 0), "--json" }
end

local function gc_parse(r)
  local j = r and r.code == 0 and sp.json_decode(r.stdout or "") or nil
  if not j then return { ran = false, summary = r and r.stdout or "" } end
  return { ran = j.ok == true, evicted = j.evicted_total or 0, skipped = j.skipped_total or 0,
           summary = string.format("evicted %d, skipped %d", j.evicted_total or 0,
                                   j.skipped_total or 0) }
end

-- sh's single-quoted form of s
local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The gc in a mount namespace of its own (o.mounts, Linux): unshare(1)
-- makes a user and mount namespace mapping the caller to root, private, so
-- no mount reaches the host and all end with the gc.  A shell makes each
-- mount (a bind of m.bind, or a tmpfs named sandproof-keep-<i> holding
-- `keep` = m.tmpfs), runs the gc with its JSON into a file, then reads each
-- tmpfs's `keep` at the mount's place as the kernel tracks it after the gc
-- (/proc/self/mountinfo: eviction renames the root away first).  Exit 97:
-- the namespace or a mount could not be made.
local function gc_in_mounts(a, t, o)
  if sp.os ~= "linux" then return { ran = false, unsupported = "mount namespaces are Linux's" } end
  local out, sh = t.tmp .. "/gc-mounts.json", { "set -u" }
  for i, m in ipairs(o.mounts) do
    if m.bind then
      sh[#sh + 1] = string.format("mount --bind %s %s || exit 97", shq(m.bind), shq(m.at))
    else
      sh[#sh + 1] = string.format("mount -t tmpfs -o size=64k sandproof-keep-%d %s && printf %%s %s > %s/keep || exit 97",
        i, shq(m.at), shq(m.tmpfs), shq(m.at))
    end
  end
  sh[#sh + 1] = string.format('"$@" > %s; rc=$?', shq(out))
  for i, m in ipairs(o.mounts) do
    if m.tmpfs then
      sh[#sh + 1] = string.format([[mp=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "tmpfs" && $(i + 2) == "sandproof-keep-%d") print $5; break } }' /proc/self/mountinfo)]], i)
      sh[#sh + 1] = string.format([[printf '%d %%s
' "$(cat "$mp/keep" 2>/dev/null)"]], i)
    end
  end
  sh[#sh + 1] = "exit $rc"
  local argv = { "unshare", "-Urm", "--propagation", "private", "--", "sh", "-c", table.concat(sh, "\n"), "sh" }
  for _, x in ipairs(gc_argv(a, t, o)) do argv[#argv + 1] = x end
  local r = sp.spawn { argv = argv, timeout_ms = 30000 }
  if r.code == 97 or not r.code then
    return { ran = false, mounts_failed = tostring(r.stderr):sub(1, 300) }
  end
  local g = gc_parse { code = r.code, stdout = sp.read(out) or "" }
  g.kept = {}
  for i, text in (r.stdout or ""):gmatch("(%d+) ([^\n]*)") do g.kept[tonumber(i)] = text end
  return g
end

-- An adapter (docs/RUNNERS.md) for the contract runner a describes:
--   name          the runner's name
--   bin(paths)    the program's path (ref: paths.ref, found at run time)
--   capabilities, reasons, timeout_scale   as the engine checks them
--   lab           start every run in a network lab (a runner not our own)
--   unavailable   nil, or why the runner cannot be used here (a skip)
function M.adapter(a)
  local A = { name = a.name, capabilities = a.capabilities, reasons = a.reasons,
              timeout_scale = a.timeout_scale }
  function A.available(paths)
    local bin = a.bin(paths)
    if a.unavailable then return false, a.unavailable end
    if not (bin and sp.executable(bin)) then
      return false, tostring(bin or a.name) .. " not found or not executable"
    end
    return true
  end
  function A.version(paths)
    local r = sp.spawn { argv = { a.bin(paths), "--version" }, stdin = "", timeout_ms = 5000 }
    return r and r.code == 0 and r.stdout:gsub("%s+$", "") or "unknown"
  end
  function A.sandbox(t, spec) return sandbox(a, t, spec) end
  function A.session(t, o) return session(a, t, o) end
  -- The host check (SETUP-4): `PATH doctor`, through t:spawn so a
  -- scenario's fault applies to it too.  Returns { exit = n, text = stdout }.
  function A.doctor(t)
    local r = t:spawn { argv = { a.bin(t.paths), "doctor" }, timeout_ms = 30000 }
    return { exit = r.code, text = r.stdout }
  end
  -- Runtime-root eviction (RT-6): `PATH gc`, now or after delay_ms in the
  -- background (so it can run while a sandboxed command holds a lease).
  -- The delay is the harness's (sp.spawn_bg's delay_ms), no shell: the
  -- same on every OS.  With o.mounts, in a mount namespace with those
  -- mounts (gc_in_mounts).
  function A.gc(t, o)
    if o.mounts then return gc_in_mounts(a, t, o) end
    return gc_parse(sp.spawn { argv = gc_argv(a, t, o), timeout_ms = 30000 })
  end
  function A.gc_async(t, o)
    local bg = assert(sp.spawn_bg { argv = gc_argv(a, t, o), delay_ms = o.delay_ms or 0, timeout_ms = 30000 })
    return { wait = function() return gc_parse(bg:wait()) end }
  end
  return A
end

-- The adapter of the contract runner at path (absolute) named name, its
-- capabilities read from it: nil and the message when they are malformed.
function M.for_path(name, path)
  local caps, reasons, scale, src, dne = M.read_capabilities(path)
  if not caps then return nil, reasons end -- reasons: the message
  local A = M.adapter { name = name, bin = function() return path end, capabilities = caps,
                        reasons = reasons, timeout_scale = scale, lab = true }
  A.capability_source, A.does_not_enforce = src, dne
  return A
end

return M
