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
local array, by_depth, DEFAULT_PROTECTED = peer.array, peer.by_depth, peer.DEFAULT_PROTECTED
local ERRNO = peer.STRERROR

local M = { name = "bwrap" }
M.capabilities, M.reasons = peer.capabilities("bwrap", {
  block_unix_sockets = "only a seccomp program compiled by the integrator (--seccomp FD) could " ..
                       "block them, and that would be the integrator's sandbox",
})

local CANDIDATES = { "/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap" }
local PLATFORM_ROOTS = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc" }

local function binary() return peer.binary("SANDPROOF_BWRAP", CANDIDATES) end

function M.available()
  if not binary() then return false, "bwrap not installed" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version()
  local b = binary()
  if not b then return "not installed" end
  local r = sp.spawn { argv = { b, "--version" }, timeout_ms = 5000 }
  return r and r.code == 0 and r.stdout:gsub("%s+$", "") or "unknown"
end

-- Whether path is one of roots or beneath one.
local function inside(path, roots)
  for _, r in ipairs(roots) do
    if path == r or path:sub(1, #r + 1) == r .. "/" then return true end
  end
  return false
end

-- The argument vector for one request.
-- t.tmp holds the empty file that hides deny_read files.  naive: the
-- careful flags left out (runners/bwrap_naive.lua): no --new-session, no
-- explicit user namespace, --disable-userns or --cap-drop, and no
-- protected metadata (neither the pinned ancestors nor the read-only
-- protected paths) - what a wrapper that binds the workspace and stops there
-- passes.
local function build(t, spec, bin, naive)
  local p = spec.profile or {}
  local fs = p.filesystem or {}
  local net = (p.network and p.network.mode) or "deny"
  local a = { bin, "--die-with-parent", "--new-session", "--unshare-all" }
  if naive then a = { bin, "--die-with-parent", "--unshare-all" } end
  local function add(...) for _, x in ipairs { ... } do a[#a + 1] = x end end
  if net == "allow" then add("--share-net") end
  -- --unshare-all only *tries* a user namespace; ask for one explicitly so
  -- that --disable-userns (no nested user namespaces) is accepted.  As
  -- root bwrap keeps every capability unless told otherwise.
  if not naive then add("--unshare-user", "--disable-userns", "--cap-drop", "ALL") end

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
      for _, name in ipairs(naive and {} or w.protected_metadata_names or DEFAULT_PROTECTED) do
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

-- The adapter's sandbox function, careful or naive (build).
function M.sandbox_of(naive)
  return function(t, spec) return M.run(t, spec, naive) end
end

function M.run(t, spec, naive)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  -- in a lab (peer.spawn): with --share-net bwrap shares its namespace
  local r = peer.spawn(t, spec, build(t, spec, binary(), naive),
                       { cwd = "/", env = { "PATH=/usr/bin:/bin", "LC_ALL=C" }, note = true })
  return peer.result(peer.outcome("bwrap", spec, r, function(o, _, last)
    -- bwrap's own failure: "bwrap: MESSAGE" and status 1, nothing ran
    if not (r.code == 1 and o.stdout == "" and last:match("^bwrap: ")) then return end
    local prog, msg = last:match("^bwrap: execvp (.-): (.*)$")
    local e = msg and ERRNO[msg]
    if e == "ENOENT" or e == "ENOTDIR" then
      o.kind, o.exec_error = "executable_not_found", e
    elseif prog then
      o.kind, o.exec_error = "application_failure", e or msg
    else
      o.kind, o.setup_error = "sandbox_setup_failure", setup_error(last:sub(8))
    end
  end), r)
end
M.sandbox = M.sandbox_of(false)

return M
