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
local array, by_depth, DEFAULT_PROTECTED = peer.array, peer.by_depth, peer.DEFAULT_PROTECTED
local ERRNO = peer.STRERROR

local M = { name = "firejail" }
local SETUID = "firejail is setuid root: it cannot start under the harness's hold/fault filters, " ..
               "which set no_new_privs"
M.capabilities, M.reasons = peer.capabilities("firejail", { hold = SETUID, fault = SETUID })

local CANDIDATES = { "/usr/bin/firejail", "/usr/local/bin/firejail", "/bin/firejail" }
-- the calls PRIV-2 and NET-5 refuse, added to firejail's default blacklist
local SECCOMP_EXTRA = {
  "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
  "io_uring_register", "kexec_load", "kexec_file_load", "init_module", "finit_module",
  "delete_module", "bpf", "perf_event_open", "add_key", "request_key", "keyctl", "userfaultfd",
  "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig",
  "fspick", "mount_setattr", "setns",
}

local function binary() return peer.binary("SANDPROOF_FIREJAIL", CANDIDATES) end

function M.available()
  if not binary() then return false, "firejail not installed" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version()
  local b = binary()
  if not b then return "not installed" end
  local r = sp.spawn { argv = { b, "--version" }, timeout_ms = 5000 }
  local v = r and r.code == 0 and r.stdout:match("^([^\n]*)")
  return v or "unknown"
end

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
  -- firejail's own --timeout=hh:mm:ss ends with status 1 and no message,
  -- indistinguishable from the command's own exit 1: the watchdog is
  -- peer.spawn's timeout(1); firejail forwards its TERM to the sandbox.
  -- In a lab (peer.spawn): without --net=none firejail shares its namespace.
  local env = {}
  for k, v in pairs(spec.env or {}) do env[#env + 1] = k .. "=" .. v end
  table.sort(env)
  local r = peer.spawn(t, spec, argv, { cwd = "/", env = env, note = true })
  return peer.result(peer.outcome("firejail", spec, r, function(o, _, _)
    -- firejail's own failure: "Error...: MESSAGE" and status 1
    local err = error_line(o.stderr)
    if r.code == 1 and o.stdout == "" and err then
      o.kind, o.setup_error = "sandbox_setup_failure", setup_error(err)
    end
  end), r)
end

return M
