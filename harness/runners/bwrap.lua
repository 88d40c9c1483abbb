-- runners/bwrap.lua - bubblewrap (bwrap), a real peer, driven through its
-- command line with the flags a careful integrator of an agent sandbox
-- passes.  Every flag and every policy element bwrap cannot express is
-- documented in docs/peers/bwrap-firejail.md; keep the two in step.
--
-- The outcome is built from what bwrap gives an integrator: an exit status
-- and its stderr.  bwrap reports no typed denials (denials is always empty)
-- and no enforcement facts (enforcement is absent).  The adapter adds no
-- enforcement of its own: what the scenarios observe is bwrap's.
local sp = require "sp"

local peer = require "sandproof.peer"
local array, by_depth, DEFAULT_PROTECTED, SIGNALS = peer.array, peer.by_depth, peer.DEFAULT_PROTECTED, peer.SIGNALS

local M = { name = "bwrap" }

local CANDIDATES = { "/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap" }
local TIMEOUT = "/usr/bin/timeout" -- coreutils: bwrap has no timeout of its own
local PLATFORM_ROOTS = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc" }

local function binary()
  local env = os.getenv("SANDPROOF_BWRAP")
  if env and env ~= "" then return sp.exists(env) and env or nil end
  for _, p in ipairs(CANDIDATES) do
    if sp.exists(p) then return p end
  end
  return nil
end

function M.available()
  if not binary() then return false, "bwrap not installed" end
  if not sp.exists(TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version()
  local b = binary()
  if not b then return "not installed" end
  local r = sp.spawn { argv = { b, "--version" }, timeout_ms = 5000 }
  return r and r.code == 0 and r.stdout:gsub("%s+$", "") or "unknown"
end

-- No runtime roots: RT scenarios are unsupported.
function M.gc() return nil end
function M.gc_async() return nil end




-- Whether path is one of roots or beneath one.
local function inside(path, roots)
  for _, r in ipairs(roots) do
    if path == r or path:sub(1, #r + 1) == r .. "/" then return true end
  end
  return false
end

-- The argument vector for one request.
-- t.tmp holds the empty file that hides deny_read files.
local function build(t, spec, bin)
  local p = spec.profile or {}
  local fs = p.filesystem or {}
  local net = (p.network and p.network.mode) or "deny"
  local a = { bin, "--die-with-parent", "--new-session", "--unshare-all" }
  local function add(...) for _, x in ipairs { ... } do a[#a + 1] = x end end
  if net == "allow" then add("--share-net") end
  -- --unshare-all only *tries* a user namespace; ask for one explicitly so
  -- that --disable-userns (no nested user namespaces) is accepted.  As
  -- root bwrap keeps every capability unless told otherwise.
  add("--unshare-user", "--disable-userns", "--cap-drop", "ALL")

  if fs.kind == "unrestricted" then
    add("--bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
  else
    local roots = fs.read_roots or { "/" }
    if #roots == 1 and roots[1] == "/" then
      add("--ro-bind", "/", "/")
    else
      -- bwrap can express narrower read roots (the contract refuses them):
      -- bind exactly those, plus the platform roots unless excluded.
      if fs.include_platform_roots ~= false then
        for _, r in ipairs(PLATFORM_ROOTS) do add("--ro-bind-try", r, r) end
      end
      for _, r in ipairs(roots) do add("--ro-bind", r, r) end
    end
    add("--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp")

    local roots_w, pins, ro, seen = {}, {}, {}, {}
    for _, w in ipairs(fs.write_roots or {}) do roots_w[#roots_w + 1] = w.root end
    for _, r in ipairs(by_depth(roots_w)) do add("--bind", r, r) end
    -- Protected metadata (META-1/2): every existing directory between the
    -- root and a protected path is bound onto itself (a mount point cannot
    -- be renamed away), the existing protected path read-only.  An absent
    -- name cannot be expressed: bwrap has no way to keep a path absent.
    for _, w in ipairs(fs.write_roots or {}) do
      for _, name in ipairs(w.protected_metadata_names or DEFAULT_PROTECTED) do
        local cur = w.root
        local parts = {}
        for part in name:gmatch("[^/]+") do parts[#parts + 1] = part end
        for i = 1, #parts - 1 do
          cur = cur .. "/" .. parts[i]
          local st = sp.lstat(cur)
          if not (st and st.type == "dir") then cur = nil break end
          if not seen[cur] then seen[cur] = true; pins[#pins + 1] = cur end
        end
        local full = w.root .. "/" .. name
        if cur and sp.lstat(full) and not seen["ro:" .. full] then
          seen["ro:" .. full] = true
          ro[#ro + 1] = full
        end
      end
      for _, s in ipairs(w.read_only_subpaths or {}) do ro[#ro + 1] = s end
    end
    for _, s in ipairs(fs.deny_write or {}) do ro[#ro + 1] = s end
    for _, d in ipairs(by_depth(pins)) do add("--bind", d, d) end
    -- Read-only paths inside a write root: --ro-bind, so that bwrap itself
    -- refuses one that is absent (it could be created: FS-2); outside the
    -- write roots everything is read-only already: --ro-bind-try.
    for _, s in ipairs(by_depth(ro)) do
      add(inside(s, roots_w) and "--ro-bind" or "--ro-bind-try", s, s)
    end
    -- deny_read: a directory is covered by an empty mode-000 read-only
    -- tmpfs, anything else by an empty mode-000 file; absent ones ignored.
    local empty
    for _, d in ipairs(fs.deny_read or {}) do
      local st = sp.lstat(d)
      if st and st.type == "dir" then
        add("--perms", "0000", "--tmpfs", d, "--remount-ro", d)
      elseif st then
        if not empty then
          -- one per context, kept for its later runs (mode 000: not even
          -- its owner may rewrite it)
          empty = t.tmp .. "/.bwrap-empty"
          if not sp.lstat(empty) then assert(sp.write(empty, "", 0)) end
        end
        add("--ro-bind", empty, d)
      end
    end
    if fs.allow_temp == false then add("--remount-ro", "/tmp") end
  end

  add("--chdir", spec.cwd or "/", "--clearenv")
  local keys = {}
  for k in pairs(spec.env or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do add("--setenv", k, spec.env[k]) end
  add("--setenv", "SANDPROOF_SANDBOXED", "1", "--setenv", "SANDPROOF_NETWORK", net, "--")
  for _, x in ipairs(spec.command) do a[#a + 1] = x end
  return a
end

-- The last non-empty line of s.
local function last_line(s)
  local last
  for l in s:gmatch("[^\n]+") do last = l end
  return last
end

-- strerror texts bwrap ends its messages with, as errno names (OUT-6)
local ERRNO = {
  ["No such file or directory"] = "ENOENT", ["Not a directory"] = "ENOTDIR",
  ["Permission denied"] = "EACCES", ["Exec format error"] = "ENOEXEC",
  ["Operation not permitted"] = "EPERM", ["Is a directory"] = "EISDIR",
  ["Too many levels of symbolic links"] = "ELOOP", ["Device or resource busy"] = "EBUSY",
  ["No space left on device"] = "ENOSPC", ["Invalid argument"] = "EINVAL",
  ["Read-only file system"] = "EROFS", ["File exists"] = "EEXIST",
  ["Function not implemented"] = "ENOSYS", ["Out of memory"] = "ENOMEM",
  ["Cannot allocate memory"] = "ENOMEM",
}

-- bwrap's message prefixes, as contract setup steps (SETUP-3)
local STEPS = {
  { "^Can't chdir", "chdir" },
  { "^Can't find source path", "mount_bind" },
  { "^Can't create file at", "mount_bind" }, { "^Can't mkdir", "mount_bind" },
  { "^Can't bind mount", "mount_bind" }, { "^Can't remount", "mount_bind" },
  { "^Can't mount tmpfs", "tmp" }, { "^Can't mount proc", "proc" },
  { "^Can't mount devpts", "dev" }, { "^Can't mount mqueue", "dev" },
  { "pivot_root", "pivot_root" }, { "^Creating new namespace failed", "clone" },
  { "^setting up uid map", "uid_map" }, { "^setting up gid map", "uid_map" },
  { "^loopback", "loopback" }, { "[Cc]apabilit", "capabilities" }, { "[Ss]eccomp", "seccomp" }, { "SECCOMP", "seccomp" },
}

local function setup_error(msg)
  local text, err = msg:match("^(.*): ([^:]+)$")
  local step = "bwrap"
  for _, s in ipairs(STEPS) do
    if msg:find(s[1]) then step = s[2] break end
  end
  return { step = step, errno = err and ERRNO[err], detail = msg }, text
end

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  if spec.raw_request then return { unsupported = "bwrap takes no request document (raw_request)" } end
  local p = spec.profile or {}
  if p.runtime then return { unsupported = "bwrap has no runtime roots (profile.runtime)" } end
  if p.block_unix_sockets then
    return { unsupported = "bwrap cannot block unix sockets: only a seccomp program compiled by the " ..
                           "integrator (--seccomp FD) could, and that would be the integrator's sandbox" }
  end
  if spec.output_limit_bytes then
    return { unsupported = "bwrap has no output capture: the command writes to the caller's " ..
                           "descriptors, so output_limit_bytes cannot be asked of it" }
  end
  -- Safety: this host sits on TEST-NET-1 itself; bwrap with --share-net
  -- shares the namespace it starts in, so it only ever starts in a lab.
  if not t._ctx.lab then t:lab() end
  local bin = binary()
  local argv = build(t, spec, bin)
  local tmo = spec.timeout_ms or 30000
  -- When the harness signals the runner (cancel, SIGKILL: PROC-4/10) the
  -- signalled process must be the peer itself, not the watchdog: no
  -- watchdog then (the harness's backstop still ends a hung run).
  if tmo > 0 and not spec.signal_after_ms then
    -- The integrator's watchdog: TERM to bwrap at the timeout (KILL 2 s
    -- later); --die-with-parent and the pid namespace end the tree.
    local w = { TIMEOUT, "--verbose", "-k", "2", string.format("%.3f", tmo / 1000) }
    for _, x in ipairs(argv) do w[#w + 1] = x end
    argv = w
  end
  t:note("note", "argv: " .. table.concat(argv, " "):sub(1, 4000))
  local r = t:spawn { argv = argv, cwd = "/", env = { "PATH=/usr/bin:/bin", "LC_ALL=C" },
                      stdin = spec.stdin, timeout_ms = (tmo > 0 and tmo or 600000) + 10000,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal }
  local stderr = r.stderr or ""
  local timed_out = stderr:find("timeout: sending signal", 1, true) ~= nil
  stderr = stderr:gsub("[^\n]*timeout: sending signal [^\n]*\n?", "")
  local o = { kind = "application_failure", exit = { code = r.code, signal = r.signal },
              stdout = r.stdout or "", stderr = stderr, denials = array() }
  local last = last_line(stderr)
  -- timeout(1)'s own failure (status 125-127, "timeout: MESSAGE"): the
  -- watchdog could not start the peer, nothing ran
  local watchdog = (r.code == 125 or r.code == 126 or r.code == 127) and stderr:match("^%S*timeout: ([^\n]*)")
  local cancel_signo = spec.signal_after_ms and SIGNALS[spec.signal or "SIGTERM"]
  if r.timed_out then
    o.kind = "runner_failed" -- bwrap outlived its own watchdog by 10 s
  elseif r.setup_error then
    o.kind, o.setup_error = "sandbox_setup_failure", { step = "spawn", detail = r.setup_error }
  elseif watchdog then
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = "spawn", errno = ERRNO[watchdog:match(": ([^:]+)$") or ""], detail = watchdog }
  elseif r.code == 0 then
    o.kind = "success"
  elseif cancel_signo and cancel_signo ~= 9 and r.code == 128 + cancel_signo then
    -- the harness cancelled the run by signalling the runner (PROC-4)
    o.kind, o.cancel_signal = "cancelled", spec.signal or "SIGTERM"
  elseif r.code == 124 and timed_out and not spec.signal_after_ms then
    o.kind = "timed_out"
  elseif r.code == 1 and o.stdout == "" and last and last:match("^bwrap: ") then
    -- bwrap's own failure: "bwrap: MESSAGE" and status 1, nothing ran
    local prog, msg = last:match("^bwrap: execvp (.-): (.*)$")
    local e = msg and ERRNO[msg]
    if e == "ENOENT" or e == "ENOTDIR" then
      o.kind, o.exec_error = "executable_not_found", e
    elseif prog then
      o.kind, o.exec_error = "application_failure", e or msg
    else
      o.kind, o.setup_error = "sandbox_setup_failure", setup_error(last:sub(8))
    end
  end
  return { outcome = o, runner_exit = r.code, runner_signal = r.signal,
           hold_total = r.hold_total, hold_hit = r.hold_hit, runner_stderr = r.stderr,
           harness_killed = r.leftovers }
end

return M
