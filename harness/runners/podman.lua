-- runners/podman.lua - podman (with crun), the container class of sandbox:
-- the command runs in a container the way agent platforms run one, driven
-- through podman's command line with the flags a careful integrator passes
-- (docs/RUNNERS.md, "podman"; every flag and why: docs/peers/podman.md):
--
--   podman run --rm --pull never --init --interactive --read-only --read-only-tmpfs=false
--     --cap-drop all --security-opt no-new-privileges --cgroups disabled
--     --network none (deny) | host (allow: the harness's lab)
--     -v WS:WS (each write root, rw)  -v P:P:ro (read-only subpaths,
--     deny_write, existing protected names)  --tmpfs D:ro,mode=000 /
--     -v EMPTY:F:ro (deny_read)  --tmpfs /tmp (allow_temp)
--     -v PROBE:PROBE:ro  -w CWD  --env K=V...  IMAGE COMMAND...
--
-- The image is built on this host from the host's own files (the shell,
-- coreutils and their libraries) with `podman import`, never pulled
-- (--pull never everywhere), in a store of the harness's own
-- (SANDPROOF_PODMAN_STORE, default ~/.cache/sandproof/podman), not the
-- user's.  Like every peer it starts in the harness's network lab, under
-- the integrator's watchdog, and its outcome is read from its exit status
-- and stderr; the adapter adds no enforcement of its own.
local sp = require "sp"

local peer = require "sandproof.peer"
local by_depth, DEFAULT_PROTECTED = peer.by_depth, peer.DEFAULT_PROTECTED

local M = { name = "podman" }
M.capabilities, M.reasons = peer.capabilities("podman", {
  block_unix_sockets = "only a seccomp profile written by the integrator (--security-opt " ..
                       "seccomp=FILE) could refuse AF_UNIX sockets, and that would be the " ..
                       "integrator's sandbox",
})
-- every launch is podman, conmon, crun and catatonit (about 2 s on a
-- loaded 2-core machine, against ref's 20 ms): a scenario of many
-- launches takes minutes
M.timeout_scale = 5

-- The programs the image holds (the catalogue's commands run these), with
-- their shared libraries; resolved on this host's PATH.
local PROGRAMS = { "sh", "dash", "cat", "ls", "mkdir", "sleep", "env", "head", "tail", "cp", "mv",
                   "ln", "rm", "rmdir", "stat", "touch", "tr", "wc", "seq", "dd", "id", "setsid",
                   "sed", "grep", "true", "false", "yes", "chmod", "timeout", "readlink", "mktemp",
                   "uname", "printf", "echo", "kill", "sync", "awk", "unshare", "script" }
local FILES = { "/etc/passwd", "/etc/group" }
-- empty directories of the image's own (never the host's, whose contents
-- and times change), mode 0755 or (/tmp, /var/tmp) 01777
local SKELETON = { "tmp", "var", "var/tmp", "proc", "dev", "sys", "run", "home" }

local function podman() return peer.binary("SANDPROOF_PODMAN", { "/usr/bin/podman", "/usr/local/bin/podman" }) end
local function crun() return peer.binary("SANDPROOF_CRUN", { "/usr/bin/crun", "/usr/local/bin/crun" }) end
local function root() return sp.getuid() == 0 end

-- The harness's own store: images, containers, podman's run and temp state.
local function store()
  local s = os.getenv("SANDPROOF_PODMAN_STORE")
  if s and s ~= "" then return s end
  local cache = os.getenv("XDG_CACHE_HOME")
  if not cache or cache == "" then cache = (os.getenv("HOME") or "/tmp") .. "/.cache" end
  return cache .. "/sandproof/podman"
end

-- crun 1.8 refuses every container on a host whose cgroups are hybrid
-- with controllers in the v2 part ("cgroups in hybrid mode not
-- supported"); hidden from it, it uses cgroup v1.
local function hybrid_cgroups()
  local c = sp.read("/sys/fs/cgroup/unified/cgroup.controllers")
  return c ~= nil and c:match("%S") ~= nil
end

function M.available()
  if not podman() then return false, "podman not installed" end
  if not crun() then return false, "crun not installed" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version()
  local b = podman()
  if not b then return "not installed" end
  local r = sp.spawn { argv = { b, "--version" }, timeout_ms = 10000 }
  local c = sp.spawn { argv = { crun() or "crun", "--version" }, timeout_ms = 5000 }
  local v = r and r.code == 0 and r.stdout:gsub("%s+$", "") or "unknown"
  local cv = c and c.code == 0 and c.stdout:match("^([^\n]*)") or "crun unknown"
  return v .. " (" .. cv .. ")"
end

local function cat(a, b)
  local o = {}
  for _, x in ipairs(a) do o[#o + 1] = x end
  for _, x in ipairs(b) do o[#o + 1] = x end
  return o
end

-- A podman command line: the harness's store, crun, no systemd; in a
-- namespace of the adapter's own where it needs one, entered by unshare(1)
-- and a shell that both exec, so the process the harness signals is
-- podman itself:
--   - not root: podman as root of a user namespace that maps the user's
--     own uid (unshare -r).  The harness's lab, the only network a runner
--     gets here, maps that uid alone, and inside it rootless podman cannot
--     map its subordinate ids (newuidmap: "cannot setresgid: Invalid
--     argument"); so every id of the container is the user's;
--   - a hybrid cgroup host (crun 1.8 refuses every container there: "cgroups
--     in hybrid mode not supported"): a private mount namespace whose
--     /sys/fs/cgroup/unified is an empty tmpfs, so crun sees cgroup v1.
local function command(s, args)
  local a = cat({ podman(), "--root", s .. "/root", "--runroot", s .. "/run", "--tmpdir", s .. "/tmp",
                  "--runtime", crun(), "--runtime-flag", "root=" .. s .. "/crun",
                  "--cgroup-manager", "cgroupfs", "--events-backend", "file" }, args)
  if root() and not hybrid_cgroups() then return a end
  local mount = hybrid_cgroups() and
    'mount -t tmpfs -o size=16k,mode=0755 sandproof-no-cgroup2 /sys/fs/cgroup/unified && ' or ''
  return cat({ "/usr/bin/unshare", root() and "-m" or "-rm", "--propagation", "private", "/bin/sh", "-c",
               mount .. 'exec "$0" "$@"' }, a)
end

-- podman's environment: nothing of the user's configuration (HOME and
-- XDG dirs in the store), C locale.
local function env(s)
  local e = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "HOME=" .. s .. "/home",
              "XDG_CONFIG_HOME=" .. s .. "/config", "XDG_DATA_HOME=" .. s .. "/data",
              "XDG_RUNTIME_DIR=" .. s .. "/xdg", "CONTAINERS_CONF=" .. s .. "/containers.conf" }
  if not root() then
    -- rootless podman in the user namespace unshare -r made (command()):
    -- podman's own markers of a process already in its rootless user
    -- namespace, as after its re-exec, the user's ids named
    local gid = (sp.read("/proc/self/status") or ""):match("\nGid:%s+(%d+)")
    e[#e + 1] = "_CONTAINERS_USERNS_CONFIGURED=done"
    e[#e + 1] = "_CONTAINERS_ROOTLESS_UID=" .. sp.getuid()
    e[#e + 1] = "_CONTAINERS_ROOTLESS_GID=" .. tostring(gid)
  end
  return e
end

-- The store's own containers.conf: file locks in the store (podman's
-- default, a shared-memory segment /dev/shm/libpod_lock, is one per host
-- for root and would be another user's root's inside a user namespace),
-- no systemd.
local CONF = '[engine]\nlock_type = "file"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n'


-- ---- the image: the host's own files, imported ---------------------------

local function dirname(p) return p:match("^(.*)/[^/]*$") or "/" end

-- The files the image holds, as relative paths in tar order (parents
-- first): each needed path by its canonical directory, every symlink on
-- the way with its target, the merged-/usr links (/bin, /lib...) as links.
local function image_files()
  local seen, out = {}, {}
  local function add(p)
    if p == "" or p == "/" then return end
    local d = dirname(p)
    d = d == "" and "/" or (sp.realpath(d) or d)
    p = (d == "/" and "" or d) .. "/" .. p:match("([^/]*)$")
    if seen[p] then return end
    add(d)
    seen[p] = true
    out[#out + 1] = p:sub(2)
    local st = sp.lstat(p)
    if st and st.type == "link" then
      -- each hop of a chain of links (awk -> /etc/alternatives/awk -> mawk)
      local to = sp.readlink(p) or ""
      add(to:sub(1, 1) == "/" and to or d .. "/" .. to)
    end
  end
  for _, l in ipairs { "/bin", "/sbin", "/lib", "/lib64" } do
    local st = sp.lstat(l)
    if st and st.type == "link" and not seen[l] then
      seen[l] = true
      out[#out + 1] = l:sub(2)
      add(sp.realpath(l) or "")
    end
  end
  for _, prog in ipairs(PROGRAMS) do
    local f = peer.find(prog)
    if f then
      add(f)
      local r = sp.spawn { argv = { "ldd", sp.realpath(f) or f }, timeout_ms = 10000 }
      for line in (r and r.stdout or ""):gmatch("[^\n]+") do
        local lib = line:match("=> (/%S+)") or line:match("^%s+(/%S+)")
        if lib then add(lib) end
      end
    end
  end
  for _, f in ipairs(FILES) do if sp.exists(f) then add(f) end end
  return out
end

-- The image's name: its file list and each file's size and mtime hashed
-- (FNV-1a), so a changed host file makes a new image.
local function image_name(files)
  local h = 0x811C9DC5
  for _, f in ipairs(files) do
    local st = sp.lstat("/" .. f) or {}
    local s = f .. ":" .. tostring(st.size) .. ":" .. tostring(st.mtime) .. "\n"
    for i = 1, #s do h = ((h ~ s:byte(i)) * 0x01000193) & 0xFFFFFFFF end
  end
  return string.format("localhost/sandproof-host:%08x", h)
end

-- Run a podman command of the adapter's own (not the runner under test:
-- no hold or fault), in the context's lab; the result.
local function admin(t, s, args)
  return sp.spawn { argv = command(s, args), env = env(s), lab = t._ctx.lab, timeout_ms = 120000 }
end

-- The image, imported when the store lacks it; nil and why when it cannot
-- be made.
local function image(t, s)
  local files = image_files()
  local name = image_name(files)
  local r = admin(t, s, { "image", "exists", name })
  if r and r.code == 0 then return name end
  local list, tar, skel = t.tmp .. "/podman-files", t.tmp .. "/podman-rootfs.tar", t.tmp .. "/podman-skel"
  assert(sp.write(list, table.concat(files, "\n") .. "\n"))
  assert(sp.mkdir(skel))
  for _, d in ipairs(SKELETON) do
    assert(sp.mkdir(skel .. "/" .. d))
    assert(sp.chmod(skel .. "/" .. d, (d == "tmp" or d == "var/tmp") and 1023 or 493)) -- 01777, 0755
  end
  local tar_opts = { "--no-recursion", "--owner=0", "--group=0", "--numeric-owner" }
  r = sp.spawn { argv = cat(cat({ "tar", "-C", "/" }, tar_opts), { "-cf", tar, "-T", list }), timeout_ms = 60000 }
  local r2 = r and r.code == 0 and
    sp.spawn { argv = cat(cat({ "tar", "-C", skel }, tar_opts), cat({ "-rf", tar }, SKELETON)), timeout_ms = 60000 }
  if not (r2 and r2.code == 0) then
    return nil, "tar of the host's files failed: " .. tostring((r2 or r or {}).stderr)
  end
  r = admin(t, s, { "import", "--quiet", tar, name })
  sp.unlink(tar)
  if not (r and r.code == 0) then return nil, "podman import failed: " .. tostring(r and r.stderr) end
  -- an image of the host's files as they were before is of no more use
  local old = admin(t, s, { "images", "--format", "{{.Repository}}:{{.Tag}}", "--filter",
                            "reference=localhost/sandproof-host" })
  for ref in (old and old.stdout or ""):gmatch("[^\n]+") do
    if ref ~= name then admin(t, s, { "rmi", "--force", ref }) end
  end
  return name
end

-- The store's directories; containers left by a scenario process that
-- died before removing them.
local swept = false
local function prepare(t, s)
  local cur = ""
  for part in s:gmatch("[^/]+") do -- its parents first (~/.cache/sandproof)
    cur = cur .. "/" .. part
    if not sp.exists(cur) then sp.mkdir(cur) end
  end
  for _, d in ipairs { "/root", "/run", "/tmp", "/home", "/config", "/data", "/xdg", "/crun" } do
    if not sp.exists(s .. d) then sp.mkdir(s .. d) end
  end
  if sp.read(s .. "/containers.conf") ~= CONF then assert(sp.write(s .. "/containers.conf", CONF)) end
  sp.chmod(s .. "/xdg", 448) -- 0700
  if not swept then
    -- containers a scenario process killed before it could remove them
    -- (sandproof-<its pid>-<n>): removed once the process is gone
    swept = true
    local l = admin(t, s, { "ps", "--all", "--filter", "name=^sandproof-", "--format", "{{.Names}}" })
    for n in (l and l.stdout or ""):gmatch("[^\n]+") do
      local pid = n:match("^sandproof%-(%d+)%-%d+$")
      if pid and not sp.exists("/proc/" .. pid) then admin(t, s, { "rm", "--force", "--ignore", n }) end
    end
  end
  return true
end

-- ---- the command line -----------------------------------------------------

-- Whether path is one of roots or beneath one.
local function inside(path, roots)
  for _, r in ipairs(roots) do
    if path == r or path:sub(1, #r + 1) == r .. "/" then return true end
  end
  return false
end

-- The mounts of a restricted filesystem: -v/--tmpfs options, or nil and
-- what podman cannot express.
local function mounts(t, spec)
  local fs = spec.profile.filesystem or {}
  local a = {}
  local function add(...) for _, x in ipairs { ... } do a[#a + 1] = x end end
  local roots = fs.read_roots or { "/" }
  if not (#roots == 1 and roots[1] == "/") then
    -- a container sees its image and its mounts only: narrower read roots
    -- are all a container can do (the contract refuses them)
    return nil, "read_roots other than [\"/\"] (the container sees its image and mounts only)"
  end
  if fs.allow_temp ~= false then add("--tmpfs", "/tmp:rw,mode=1777") end
  local roots_w, ro = {}, {}
  for _, w in ipairs(fs.write_roots or {}) do roots_w[#roots_w + 1] = w.root end
  for _, r in ipairs(by_depth(roots_w)) do add("-v", r .. ":" .. r .. ":rw") end
  for _, w in ipairs(fs.write_roots or {}) do
    -- protected metadata: an existing protected path read-only; an absent
    -- one cannot be kept absent by a mount
    for _, name in ipairs(w.protected_metadata_names or DEFAULT_PROTECTED) do
      local full = w.root .. "/" .. name
      if sp.lstat(full) then ro[#ro + 1] = full end
    end
    for _, s in ipairs(w.read_only_subpaths or {}) do ro[#ro + 1] = s end
  end
  for _, s in ipairs(fs.deny_write or {}) do
    if inside(s, roots_w) then ro[#ro + 1] = s end
  end
  -- inside a write root a read-only path must exist (podman refuses an
  -- absent source); outside every write root it is read-only already
  for _, s in ipairs(by_depth(ro)) do add("-v", s .. ":" .. s .. ":ro") end
  local empty
  for _, d in ipairs(fs.deny_read or {}) do
    local st = sp.lstat(d)
    if st and st.type == "dir" then
      add("--tmpfs", d .. ":ro,mode=000")
    elseif st then
      if not empty then
        empty = t.tmp .. "/.podman-empty"
        if not sp.lstat(empty) then assert(sp.write(empty, "", 0)) end
      end
      add("-v", empty .. ":" .. d .. ":ro")
    end
  end
  return a
end

-- The argument vector of `podman run` for one request; nil and what
-- podman cannot be asked.
local function build(t, spec, s, img, name)
  local p = spec.profile or {}
  local fs = p.filesystem or {}
  local net = (p.network and p.network.mode) or "deny"
  local a = { "run", "--rm", "--pull", "never", "--name", name, "--init", "--interactive",
    "--read-only", "--read-only-tmpfs=false", "--cap-drop", "all",
    "--security-opt", "no-new-privileges", "--cgroups", "disabled",
    "--network", net == "allow" and "host" or "none" }
  local function add(...) for _, x in ipairs { ... } do a[#a + 1] = x end end
  do
    -- podman as root (of the host or of the adapter's user namespace) asks
    -- the container's rlimits raised to its defaults, which a caller
    -- without CAP_SYS_RESOURCE in the host's namespace cannot have: the
    -- container gets the caller's own hard limits (nproc at most podman's
    -- own 32768)
    local lim = sp.read("/proc/self/limits") or ""
    local nofile = lim:match("Max open files%s+%d+%s+(%d+)")
    local nproc = lim:match("Max processes%s+%d+%s+(%d+)")
    if nofile then add("--ulimit", "nofile=" .. nofile .. ":" .. nofile) end
    if nproc then
      nproc = math.min(tonumber(nproc), 32768)
      add("--ulimit", "nproc=" .. nproc .. ":" .. nproc)
    end
  end
  if fs.kind == "unrestricted" then
    add("-v", "/:/host:rw")
  else
    local m, why = mounts(t, spec)
    if not m then return nil, why end
    for _, x in ipairs(m) do a[#a + 1] = x end
  end
  -- the harness's probe at its own path, read-only (the image holds no
  -- sandproof-probe): instrumentation, not policy
  if t.paths and t.paths.probe and sp.exists(t.paths.probe) then
    add("-v", t.paths.probe .. ":" .. t.paths.probe .. ":ro")
  end
  add("-w", spec.cwd or "/")
  local keys = {}
  for k in pairs(spec.env or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do add("--env", k .. "=" .. spec.env[k]) end
  add("--env", "SANDPROOF_SANDBOXED=1", "--env", "SANDPROOF_NETWORK=" .. net, img)
  for _, x in ipairs(spec.command) do a[#a + 1] = x end
  return command(s, a)
end

-- catatonit's failure to exec the command (status 1, its ERROR line), and
-- podman's and crun's own failures, "Error: ..." last on stderr: status
-- 127 and crun's "executable file ... not found" (executable_not_found),
-- 126 (found, cannot be run: application_failure with exec_error), and
-- any other 125-127 (podman or crun could not set the container up, e.g.
-- crun refusing a mount whose target is a symlink: 127 with ENOENT).
local function own(o, r, last)
  -- catatonit (--init) could not exec the command: status 1
  local cat_err = r.code == 1 and o.stdout == "" and last:match("^ERROR %(catatonit:%d+%): failed to exec pid1: (.*)$")
  if cat_err then
    local e = peer.STRERROR[cat_err]
    o.kind = (e == "ENOENT" or e == "ENOTDIR") and "executable_not_found" or "application_failure"
    o.exec_error = e or cat_err
    return
  end
  local msg = last:match("^Error: (.*)$")
  if not msg or r.code < 125 or r.code > 127 then return end
  if r.code == 127 and msg:match("executable file .* not found") then
    o.kind, o.exec_error = "executable_not_found", "ENOENT"
  elseif r.code == 126 and msg:match("open executable") then
    o.kind, o.exec_error = "application_failure", msg:match("[Pp]ermission denied") and "EACCES" or msg
  else
    local err = msg:match(": ([^:]+): OCI [^:]*$") or msg:match(": ([^:]+)$")
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = msg:match("crun:") and "crun" or "podman", errno = err and peer.STRERROR[err],
                      detail = msg }
  end
end

local seq = 0
function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  if not t._ctx.lab and t.os ~= "macos" then t:lab() end
  local s = store()
  local prepared, perr = prepare(t, s)
  if not prepared then t:skip(perr) end
  local img, ierr = image(t, s)
  if not img then t:skip(ierr) end
  seq = seq + 1
  local name = string.format("sandproof-%d-%d", sp.getpid(), seq)
  local argv, unsupported = build(t, spec, s, img, name)
  if not argv then return { unsupported = "podman cannot express " .. unsupported } end
  local r = peer.spawn(t, spec, argv, { cwd = "/", env = env(s), note = true })
  -- a container whose podman was killed outlives it (conmon keeps it):
  -- whatever the harness did not kill already, removed by name
  admin(t, s, { "rm", "--force", "--ignore", "--time", "0", name })
  return peer.result(peer.outcome("podman", spec, r, own), r)
end

return M
