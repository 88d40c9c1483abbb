-- runners/srt.lua - Anthropic's sandbox-runtime, `srt` (npm
-- @anthropic-ai/sandbox-runtime, installed by ci/peers-npm.sh with the
-- bubblewrap, socat and ripgrep it needs), driven as a black box through its
-- CLI:
--
--   srt --settings <scenario tmp>/srt-settings.json -- <command...>
--
-- started in the request's cwd (srt has no cwd option: the command runs in
-- srt's own).  srt starts its HTTP and SOCKS proxies (in its node process)
-- and socat bridges (inside the sandbox): all of them are descendants of the
-- srt process, which the harness starts inside its lab (a network namespace
-- with no uplink), so nothing of it reaches the internet.
-- The mapping, setting by setting, and what cannot be expressed are
-- documented in docs/peers/codex-srt.md.
-- On macOS the same command line runs the command under srt's Seatbelt
-- profile (/usr/bin/sandbox-exec) with its proxies on the host's loopback:
-- it needs node and rg only, its /tmp is /private/tmp, and its own
-- failures are sandbox-exec's.  Not verified on a Mac yet (docs/RUNNERS.md).
local sp = require "sp"

local peer = require "sandproof.peer"
local find, DEFAULT_PROTECTED, SYS_PATH = peer.find, peer.DEFAULT_PROTECTED, peer.SYS_PATH

local M = { name = "srt" }
M.capabilities, M.reasons = peer.capabilities("srt")

-- The harness's per-scenario timeout is 20 x its default (120 s): a launch
-- is node + bash + bwrap + socat, ~350 ms, and a hold sweep over every
-- path-resolving call of that tree makes ~2800 launches: ~16 min.
M.timeout_scale = 20

local prefix = peer.npm_prefix

local function srt_bin() return find("srt", prefix() .. "/bin") end

-- What srt needs beside itself (it resolves them on its own PATH): on
-- Linux bubblewrap and socat too, on macOS sandbox-exec (the system's).
local MACOS = sp.os == "macos"
local DEPS = MACOS and { "node", "rg" } or { "node", "bwrap", "socat", "rg" }

-- srt's PATH: the directories holding node and its dependencies, then the
-- system's.  It becomes the command's PATH only when the request has none.
local function tool_path()
  local dirs, seen = {}, {}
  for _, n in ipairs(DEPS) do
    local p = find(n)
    local d = p and p:match("^(.*)/[^/]+$")
    if d and not seen[d] then dirs[#dirs + 1], seen[d] = d, true end
  end
  for d in SYS_PATH:gmatch("[^:]+") do
    if not seen[d] then dirs[#dirs + 1], seen[d] = d, true end
  end
  return table.concat(dirs, ":")
end

function M.available()
  if not srt_bin() then return false, "srt not installed (ci/peers-npm.sh)" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  for _, n in ipairs(DEPS) do
    if not find(n) then return false, "srt not installed: " .. n .. " missing" end
  end
  return true
end

function M.version()
  local bin = srt_bin()
  if not bin then return "not installed" end
  local r = sp.spawn { argv = { bin, "--version" }, timeout_ms = 10000,
                       env = { "PATH=" .. tool_path(), "HOME=/nonexistent" } }
  return r and r.code == 0 and ("srt " .. r.stdout:gsub("%s+$", "")) or "unknown"
end


local array = function(t) return setmetatable(t or {}, { __jsonarray = true }) end

-- A path exactly as given, never a glob pattern, present or not (srt's
-- `{"path": ..., "literal": true}` form).
local function lit(p) return { path = p, literal = true } end

local function join(root, name) return (root:gsub("/+$", "")) .. "/" .. name end

local function under(p, dir) return p == dir or p:sub(1, #dir + 1) == dir .. "/" end


-- The request's policy as srt settings.  notes: what could not be said.
local function settings(spec, notes)
  local p = spec.profile or {}
  local fs = p.filesystem or {}
  local deny_read, allow_read, allow_write, deny_write = array(), array(), array(), array()
  local s = {
    network = { allowedDomains = array(), deniedDomains = array() },
    filesystem = { denyRead = deny_read, allowRead = allow_read,
                   allowWrite = allow_write, denyWrite = deny_write },
  }
  -- Unix sockets: srt blocks socket(AF_UNIX) with seccomp unless told
  -- otherwise; the contract's default (block_unix_sockets false) allows them.
  s.network.allowAllUnixSockets = not p.block_unix_sockets
  if os.getenv("SANDPROOF_SRT_UNIX") == "srt-default" then
    s.network.allowAllUnixSockets = nil
    notes[#notes + 1] = "allowAllUnixSockets left to srt's default (SANDPROOF_SRT_UNIX)"
  end
  if p.network and p.network.mode == "allow" then
    -- srt always gives the command a network namespace of its own and
    -- reaches only allow-listed names through its proxies; "*" is refused
    -- by its config check.  The closest request is the same empty list.
    notes[#notes + 1] = "network=allow: srt has no allow-all (\"*\" is refused); ran with its own isolated network"
  end
  if fs.kind == "unrestricted" then
    s.filesystem.disabled = true
    return s
  end
  local roots = fs.read_roots or { "/" }
  if not (#roots == 1 and roots[1] == "/") then
    -- srt reads everywhere unless denied: deny "/" then allow the roots
    deny_read[#deny_read + 1] = "/"
    if fs.include_platform_roots ~= false then
      for _, d in ipairs { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc" } do
        allow_read[#allow_read + 1] = d
      end
    end
    for _, r in ipairs(roots) do allow_read[#allow_read + 1] = lit(r) end
  end
  -- /tmp is never the host's (FS-4): a denyRead of /tmp makes srt mount an
  -- empty private tmpfs there (writable: srt has no read-only variant, so
  -- allow_temp=false cannot be honoured), and every write root beneath
  -- /tmp is bound back by an allowRead.  SANDPROOF_SRT_TMP=host leaves the
  -- host's /tmp visible (srt's own default; with allow_temp also writable).
  local tmp_host = os.getenv("SANDPROOF_SRT_TMP") == "host"
  local tmp = peer.tmp_root() -- /private/tmp on macOS
  if tmp_host then
    notes[#notes + 1] = "/tmp left to srt's default (SANDPROOF_SRT_TMP=host)"
    if fs.allow_temp ~= false then allow_write[#allow_write + 1] = tmp end
  else
    deny_read[#deny_read + 1] = tmp
    if fs.allow_temp == false then
      notes[#notes + 1] = "allow_temp=false: srt's private /tmp is writable all the same"
    end
  end
  for _, w in ipairs(fs.write_roots or {}) do
    allow_write[#allow_write + 1] = lit(w.root)
    if not tmp_host and under(w.root, tmp) then allow_read[#allow_read + 1] = lit(w.root) end
    for _, sub in ipairs(w.read_only_subpaths or {}) do deny_write[#deny_write + 1] = lit(sub) end
    for _, name in ipairs(w.protected_metadata_names or DEFAULT_PROTECTED) do
      deny_write[#deny_write + 1] = lit(join(w.root, name))
    end
  end
  for _, d in ipairs(fs.deny_write or {}) do deny_write[#deny_write + 1] = lit(d) end
  for _, d in ipairs(fs.deny_read or {}) do deny_read[#deny_read + 1] = lit(d) end
  return s
end



-- srt's own failures, told from the command's by its own messages (the
-- same rule as the bwrap adapter's; peer.outcome has the shared ones):
-- status 1 with nothing on stdout and "bwrap: ..." (from the bubblewrap it
-- drives) or "Error: ..." (srt's) last on stderr; on macOS nothing on
-- stdout and "sandbox-exec: ..." last (the profile refused).  Not found is not told
-- apart: srt runs the command through bash, whose status 127 is also a
-- command's own `exit 127` (PROC-6 is the peer's to meet).  Could srt not
-- be started at all, that is the cwd: srt has no cwd option, the command
-- runs in srt's own working directory (peer.outcome: step chdir).
local function own_failure(o, r, last)
  if (r.code == 1 and o.stdout == "" and (last:match("^bwrap: ") or last:match("^Error: "))) or
     (o.stdout == "" and last:match("^sandbox%-exec: ")) then
    local text = last:match(": ([^:]+)$")
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = last:match("^bwrap: ") and "bwrap" or
                             last:match("^sandbox%-exec: ") and "seatbelt" or "srt",
                      errno = text and peer.STRERROR[text], detail = last }
  end
end

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  local p = spec.profile or {}
  local notes = {}
  local s = settings(spec, notes)
  -- srt would resolve these on its PATH, which is the request's when it
  -- has one: name them (bwrapPath, socatPath, ripgrep.command)
  s.ripgrep = { command = find("rg") }
  if not MACOS then s.bwrapPath, s.socatPath = find("bwrap"), find("socat") end
  local file = t.tmp .. "/srt-settings.json"
  assert(sp.write(file, sp.json_encode(s)))
  for _, n in ipairs(notes) do t:note("note", "srt adapter: " .. n) end
  -- srt hands its own environment on to the command (adding its proxy
  -- variables): it gets the request's env and the contract's two variables
  -- (PROC-11), plus a PATH that reaches bwrap, socat and rg when the
  -- request has none, and a HOME of the scenario's own when the request
  -- has none (srt makes ~/.npm/_logs and ~/.claude/debug writable: never
  -- the real $HOME's).
  local env, has = {}, {}
  for k, v in pairs(spec.env or {}) do env[#env + 1] = k .. "=" .. v; has[k] = true end
  env[#env + 1] = "SANDPROOF_SANDBOXED=1"
  env[#env + 1] = "SANDPROOF_NETWORK=" .. ((p.network and p.network.mode == "allow") and "allow" or "deny")
  if not has.PATH then env[#env + 1] = "PATH=" .. tool_path() end
  if not has.HOME then
    local home = t.tmp .. "/srt-home"
    if not sp.exists(home) then assert(sp.mkdir(home)) end
    env[#env + 1] = "HOME=" .. home
  end
  -- node by path: srt's PATH is the request's when it has one
  local argv = { find("node"), srt_bin(), "--settings", file, "--" }
  for _, a in ipairs(spec.command) do argv[#argv + 1] = a end
  -- srt's proxies (in its node process) and socat bridges are its
  -- descendants: in the lab with it (peer.spawn), no uplink.
  local r = peer.spawn(t, spec, argv, { cwd = spec.cwd, env = env })
  return peer.result(peer.outcome("srt", spec, r, own_failure), r)
end

return M
