-- runners/firejail.lua - firejail, a real peer, driven through its command
-- line with the flags a careful integrator of an agent sandbox passes.
-- Every flag and every policy element firejail cannot express is documented
-- in docs/peers/bwrap-firejail.md; keep the two in step.
--
-- The outcome is built from what firejail gives an integrator: an exit
-- status and its stderr.  firejail reports no typed denials (denials is
-- always empty) and no enforcement facts (enforcement is absent).  The
-- adapter adds no enforcement of its own.
--
-- firejail is setuid root.  It cannot start under the harness's hold and
-- fault filters (they set no_new_privs, which disables setuid), nor as a
-- non-root user inside the harness's network lab (a user namespace, in
-- which a setuid-root binary runs without privilege).
local sp = require "sp"

local peer = require "sandproof.peer"
local array, by_depth, DEFAULT_PROTECTED, SIGNALS = peer.array, peer.by_depth, peer.DEFAULT_PROTECTED, peer.SIGNALS

local M = { name = "firejail" }

local CANDIDATES = { "/usr/bin/firejail", "/usr/local/bin/firejail", "/bin/firejail" }
local TIMEOUT = "/usr/bin/timeout" -- coreutils; see the timeout note below
-- the calls PRIV-2 and NET-5 refuse, added to firejail's default blacklist
local SECCOMP_EXTRA = {
  "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
  "io_uring_register", "kexec_load", "kexec_file_load", "init_module", "finit_module",
  "delete_module", "bpf", "perf_event_open", "add_key", "request_key", "keyctl", "userfaultfd",
  "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig",
  "fspick", "mount_setattr", "setns",
}

local function binary()
  local env = os.getenv("SANDPROOF_FIREJAIL")
  if env and env ~= "" then return sp.exists(env) and env or nil end
  for _, p in ipairs(CANDIDATES) do
    if sp.exists(p) then return p end
  end
  return nil
end

function M.available()
  if not binary() then return false, "firejail not installed" end
  if not sp.exists(TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version()
  local b = binary()
  if not b then return "not installed" end
  local r = sp.spawn { argv = { b, "--version" }, timeout_ms = 5000 }
  local v = r and r.code == 0 and r.stdout:match("^([^\n]*)")
  return v or "unknown"
end

-- No runtime roots: RT scenarios are unsupported.
function M.gc() return nil end
function M.gc_async() return nil end




-- The argument vector for one request, or nil and an "unsupported" reason.
local function build(spec, bin)
  local p = spec.profile or {}
  local fs = p.filesystem or {}
  local net = (p.network and p.network.mode) or "deny"
  local a = { bin, "--noprofile", "--quiet", "--deterministic-exit-code", "--deterministic-shutdown" }
  local function add(...) for _, x in ipairs { ... } do a[#a + 1] = x end end
  if net ~= "allow" then add("--net=none") end
  add("--ipc-namespace", "--caps.drop=all", "--nonewprivs", "--nogroups",
      -- firejail's default seccomp blacklist plus the calls PRIV-2/NET-5
      -- refuse that it lacks (io_uring among them); only native-ABI calls
      "--seccomp=" .. table.concat(SECCOMP_EXTRA, ","), "--seccomp.block-secondary",
      "--restrict-namespaces",
      p.block_unix_sockets and "--protocol=inet,inet6,netlink" or "--protocol=unix,inet,inet6,netlink",
      "--private-dev",
      -- firejail's default hides /var/tmp behind a private tmpfs; the
      -- contract's view is the host's /var/tmp, read-only
      "--keep-var-tmp")

  if fs.kind ~= "unrestricted" then
    local roots = fs.read_roots or { "/" }
    if not (#roots == 1 and roots[1] == "/") then
      return nil, "firejail cannot confine reads to a list of roots (read_roots other than [\"/\"])"
    end
    add("--read-only=/", "--private-tmp")
    -- firejail applies --read-only/--read-write in command-line order, each
    -- to everything beneath: /tmp first, the write roots beneath it after
    if fs.allow_temp == false then add("--read-only=/tmp") end
    local roots_w, ro, seen = {}, {}, {}
    for _, w in ipairs(fs.write_roots or {}) do roots_w[#roots_w + 1] = w.root end
    for _, r in ipairs(by_depth(roots_w)) do
      -- --private-tmp hides the host's /tmp: a write root beneath it is
      -- brought back with --whitelist (firejail's way into its tmpfs)
      if r:sub(1, 5) == "/tmp/" then add("--whitelist=" .. r) end
      add("--read-write=" .. r)
    end
    -- Protected metadata: an existing path is made read-only.  Ancestors
    -- cannot be pinned (a --read-write on .git re-enables writes on the
    -- read-only mounts beneath it) and absent names cannot be kept absent.
    for _, w in ipairs(fs.write_roots or {}) do
      for _, name in ipairs(w.protected_metadata_names or DEFAULT_PROTECTED) do
        local full = w.root .. "/" .. name
        if sp.lstat(full) and not seen[full] then
          seen[full] = true
          ro[#ro + 1] = full
        end
      end
      for _, s in ipairs(w.read_only_subpaths or {}) do ro[#ro + 1] = s end
    end
    for _, s in ipairs(fs.deny_write or {}) do ro[#ro + 1] = s end
    for _, s in ipairs(by_depth(ro)) do add("--read-only=" .. s) end
    for _, d in ipairs(fs.deny_read or {}) do
      if sp.lstat(d) then add("--blacklist=" .. d) end
    end
  end
  add("--private-cwd=" .. (spec.cwd or "/"),
      "--env=SANDPROOF_SANDBOXED=1", "--env=SANDPROOF_NETWORK=" .. net, "--")
  for _, x in ipairs(spec.command) do a[#a + 1] = x end
  return a
end

-- strerror texts firejail ends its messages with, as errno names (OUT-6)
local ERRNO = {
  ["No such file or directory"] = "ENOENT", ["Not a directory"] = "ENOTDIR",
  ["Permission denied"] = "EACCES", ["Operation not permitted"] = "EPERM",
  ["Too many levels of symbolic links"] = "ELOOP", ["Invalid argument"] = "EINVAL",
  ["Device or resource busy"] = "EBUSY", ["Read-only file system"] = "EROFS",
}

-- firejail's message texts, as contract setup steps (SETUP-3)
local STEPS = {
  { "working directory", "chdir" }, { "cannot mount", "mount_bind" },
  { "[Ss]eccomp", "seccomp" }, { "[Cc]apabilit", "capabilities" },
  { "namespace", "clone" }, { "[Nn]etwork", "loopback" },
}

local function setup_error(line)
  local err = line:match(": ([^:]+)$")
  local step = "firejail"
  for _, s in ipairs(STEPS) do
    if line:find(s[1]) then step = s[2] break end
  end
  return { step = step, errno = err and ERRNO[err], detail = line }
end

local function error_line(s)
  for l in s:gmatch("[^\n]+") do
    if l:match("^Error") then return l end
  end
  return nil
end

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  if spec.raw_request then return { unsupported = "firejail takes no request document (raw_request)" } end
  if t._ctx.hold or t._ctx.fault then
    return { unsupported = "firejail is setuid root: it cannot start under the harness's hold/fault " ..
                           "filters, which set no_new_privs" }
  end
  local p = spec.profile or {}
  if p.runtime then return { unsupported = "firejail has no runtime roots (profile.runtime)" } end
  if spec.output_limit_bytes then
    return { unsupported = "firejail has no output capture: the command writes to the caller's " ..
                           "descriptors, so output_limit_bytes cannot be asked of it" }
  end
  -- Safety: this host sits on TEST-NET-1 itself; without --net=none
  -- firejail shares the namespace it starts in, so it only ever starts in
  -- a lab.
  if not t._ctx.lab then t:lab() end
  if sp.getuid() ~= 0 then
    -- The lab of a non-root caller is a user namespace: the setuid bit is
    -- ignored there, and firejail 0.9.72 aborts (create_empty_dir_as_root:
    -- assertion st_uid == 0).  The user nobody is refused by firejail in
    -- any case (firejail-users(5)).
    t:skip("firejail needs its setuid root, which a non-root caller loses inside the harness's " ..
           "network lab (a user namespace; firejail aborts there), and it never admits the user nobody")
  end
  local argv, unsupported = build(spec, binary())
  if not argv then return { unsupported = unsupported } end
  local tmo = spec.timeout_ms or 30000
  -- When the harness signals the runner (cancel, SIGKILL: PROC-4/10) the
  -- signalled process must be the peer itself, not the watchdog: no
  -- watchdog then (the harness's backstop still ends a hung run).
  if tmo > 0 and not spec.signal_after_ms then
    -- firejail's own --timeout=hh:mm:ss ends with status 1 and no message,
    -- indistinguishable from the command's own exit 1: the integrator's
    -- watchdog is timeout(1), TERM then KILL 2 s later.  firejail forwards
    -- TERM to the sandbox and shuts it down.
    local w = { TIMEOUT, "--verbose", "-k", "2", string.format("%.3f", tmo / 1000) }
    for _, x in ipairs(argv) do w[#w + 1] = x end
    argv = w
  end
  t:note("note", "argv: " .. table.concat(argv, " "):sub(1, 4000))
  local env = {}
  for k, v in pairs(spec.env or {}) do env[#env + 1] = k .. "=" .. v end
  table.sort(env)
  local r = t:spawn { argv = argv, cwd = "/", env = env, stdin = spec.stdin,
                      timeout_ms = (tmo > 0 and tmo or 600000) + 10000,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal }
  local stderr = r.stderr or ""
  local timed_out = stderr:find("timeout: sending signal", 1, true) ~= nil
  stderr = stderr:gsub("[^\n]*timeout: sending signal [^\n]*\n?", "")
  local o = { kind = "application_failure", exit = { code = r.code, signal = r.signal },
              stdout = r.stdout or "", stderr = stderr, denials = array() }
  -- timeout(1)'s own failure (status 125-127, "timeout: MESSAGE"): the
  -- watchdog could not start the peer, nothing ran
  local watchdog = (r.code == 125 or r.code == 126 or r.code == 127) and stderr:match("^%S*timeout: ([^\n]*)")
  local cancel_signo = spec.signal_after_ms and SIGNALS[spec.signal or "SIGTERM"]
  local err = error_line(stderr)
  if r.timed_out then
    o.kind = "runner_failed" -- firejail outlived its watchdog by 10 s
  elseif r.setup_error then
    o.kind, o.setup_error = "sandbox_setup_failure", { step = "spawn", detail = r.setup_error }
  elseif watchdog then
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = "spawn", errno = ERRNO[watchdog:match(": ([^:]+)$") or ""], detail = watchdog }
  elseif r.code == 0 then
    o.kind = "success"
  elseif cancel_signo and cancel_signo ~= 9 and r.code == 128 + cancel_signo then
    o.kind, o.cancel_signal = "cancelled", spec.signal or "SIGTERM"
  elseif r.code == 124 and timed_out and not spec.signal_after_ms then
    o.kind = "timed_out"
  elseif r.code == 1 and o.stdout == "" and err then
    -- firejail's own failure: "Error...: MESSAGE" and status 1
    o.kind, o.setup_error = "sandbox_setup_failure", setup_error(err)
  end
  return { outcome = o, runner_exit = r.code, runner_signal = r.signal,
           hold_total = r.hold_total, hold_hit = r.hold_hit, runner_stderr = r.stderr,
           harness_killed = r.leftovers }
end

return M
