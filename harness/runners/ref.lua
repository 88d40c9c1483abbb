-- runners/ref.lua - sandproof-ref, the reference runner, driven as a black
-- box through its documented CLI: `sandproof-ref run --request -` with the
-- contract request on stdin and the outcome JSON on stdout.
local sp = require "sp"
local encoded = require "sandproof.encoded"

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
  -- bytes are not UTF-8 text (or would cost more escaped) (OUT-7); so are
  -- the paths of the change report (OUT-8)
  for _, k in ipairs(outcome and { "stdout", "stderr" } or {}) do
    local err = encoded.decode(outcome, k)
    if err then t:error("outcome " .. err) end
  end
  local cerr = outcome and encoded.decode_changes(outcome)
  if cerr then t:error("outcome " .. cerr) end
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
local function gc_in_mounts(t, o)
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
  for _, a in ipairs(gc_argv(t, o)) do argv[#argv + 1] = a end
  local r = sp.spawn { argv = argv, timeout_ms = 30000 }
  if r.code == 97 or not r.code then
    return { ran = false, mounts_failed = tostring(r.stderr):sub(1, 300) }
  end
  local g = gc_parse { code = r.code, stdout = sp.read(out) or "" }
  g.kept = {}
  for i, text in (r.stdout or ""):gmatch("(%d+) ([^\n]*)") do g.kept[tonumber(i)] = text end
  return g
end

-- Runtime-root eviction (RT-6): `sandproof-ref gc`, now or after delay_ms
-- in the background (so it can run while a sandboxed command holds a lease).
-- The delay is the harness's (sp.spawn_bg's delay_ms), no shell: the same
-- on every OS.  With o.mounts, in a mount namespace with those mounts
-- (gc_in_mounts).
function M.gc(t, o)
  if o.mounts then return gc_in_mounts(t, o) end
  return gc_parse(sp.spawn { argv = gc_argv(t, o), timeout_ms = 30000 })
end

function M.gc_async(t, o)
  local bg = assert(sp.spawn_bg { argv = gc_argv(t, o), delay_ms = o.delay_ms or 0, timeout_ms = 30000 })
  return { wait = function() return gc_parse(bg:wait()) end }
end

return M
