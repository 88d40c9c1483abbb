-- runners/codex.lua - OpenAI Codex CLI's `codex sandbox` (npm @openai/codex,
-- installed by ci/peers-npm.sh), driven as a black box through its CLI:
--
--   codex sandbox -P sandproof -C <cwd> -- <command...>
--
-- with CODEX_HOME a private directory of the scenario holding a config.toml
-- that defines the permission profile "sandproof" (the request's policy) and
-- a shell_environment_policy that gives the command exactly the request's
-- environment.  No login, no model, no network credentials: `codex sandbox`
-- only wraps a local command, and it runs inside the harness's lab (a
-- network namespace with no uplink) like every runner.
-- The mapping, flag by flag, and what cannot be expressed are documented in
-- docs/peers/codex-srt.md.
-- On macOS the same command line runs the command under codex's Seatbelt
-- profile (/usr/bin/sandbox-exec; the platform is codex's to pick): the
-- policy paths are canonical there (/private/tmp for /tmp), and its own
-- failures are sandbox-exec's.  Not verified on a Mac yet (docs/RUNNERS.md).
local sp = require "sp"

local peer = require "sandproof.peer"
local find, DEFAULT_PROTECTED, SYS_PATH = peer.find, peer.DEFAULT_PROTECTED, peer.SYS_PATH

local M = { name = "codex" }
M.capabilities, M.reasons = peer.capabilities("codex", {
  block_unix_sockets = "codex has no setting to block unix sockets",
})

-- The harness's per-scenario timeout is 5 x its default (120 s): a launch
-- is ~100 ms (node launcher, codex, bwrap), and setup.fault_sweep makes
-- ~280 runs, some ending in the 30 s watchdog: ~4.5 min.
M.timeout_scale = 5

local prefix = peer.npm_prefix

local function codex_bin() return find("codex", prefix() .. "/bin") end

-- The codex launcher is a node script (#!/usr/bin/env node): its PATH must
-- reach node; nothing else of the harness's environment is passed on.
local function launcher_path()
  local node = find("node")
  local dir = node and node:match("^(.*)/[^/]+$")
  return dir and (dir .. ":" .. SYS_PATH) or SYS_PATH
end

-- the installed npm package (its native binary lives beneath)
local function package_dir()
  local bin = codex_bin() or (prefix() .. "/bin/codex")
  local top = bin:match("^(.*)/bin/[^/]+$") or prefix()
  return top .. "/lib/node_modules/@openai/codex"
end

function M.available()
  if not codex_bin() then return false, "codex not installed (ci/peers-npm.sh)" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  if not find("node") then return false, "codex not installed: node missing" end
  return true
end

function M.version()
  local bin = codex_bin()
  if not bin then return "not installed" end
  -- HOME/CODEX_HOME point nowhere: --version reads no configuration
  local r = sp.spawn { argv = { bin, "--version" }, timeout_ms = 10000,
                       env = { "PATH=" .. launcher_path(), "HOME=/nonexistent",
                               "CODEX_HOME=/nonexistent" } }
  return r and r.code == 0 and (r.stdout:gsub("%s+$", "")) or "unknown"
end


-- ---- TOML ------------------------------------------------------------------

-- A TOML basic string: every byte below 0x20, DEL, '"' and '\' escaped;
-- UTF-8 passes through (TOML files are UTF-8).
local function q(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04X", c:byte())
  end) .. '"'
end

local function join(root, name) return (root:gsub("/+$", "")) .. "/" .. name end

local CODEX_PROTECTS = { [".git"] = true, [".agents"] = true, [".codex"] = true }

-- The request's filesystem policy as codex permission-profile entries
-- (path or :special -> "read" | "write" | "none").  Codex resolves
-- overlapping entries by specificity, so the order here is cosmetic.
local function fs_entries(fs, notes, home)
  local e, order = {}, {}
  local function put(k, v)
    if e[k] == nil then order[#order + 1] = k end
    e[k] = v
  end
  fs = fs or {}
  if fs.kind == "unrestricted" then
    put(":root", "write")
    return e, order
  end
  local roots = fs.read_roots or { "/" }
  if #roots == 1 and roots[1] == "/" then
    put(":root", "read")
  else
    -- codex can confine reads: the platform's own roots (:minimal) plus
    -- each read root
    if fs.include_platform_roots ~= false then put(":minimal", "read") end
    for _, r in ipairs(roots) do put(r, "read") end
    -- codex re-executes its own helper (CODEX_HOME/tmp/arg0-linux/*, links
    -- to its native binary in the npm package) inside the sandbox: without
    -- these grants it cannot start at all under confined reads
    put(home, "read")
    put(package_dir(), "read")
  end
  -- /tmp: codex has no private temp.  Its own grant (`:slash_tmp` =
  -- "write", what :workspace does unless exclude_slash_tmp) makes the
  -- host's /tmp writable, shared with every other process; so /tmp is
  -- hidden ("none") with or without allow_temp: the host's /tmp stays out
  -- of reach, at the price of no writable temp in the sandbox.
  -- SANDPROOF_CODEX_TMP=write|readonly|none sets the allow_temp case
  -- instead (the experiments in docs/peers/codex-srt.md).
  local tmp = fs.allow_temp == false and "none" or (os.getenv("SANDPROOF_CODEX_TMP") or "none")
  if tmp == "write" then put(":slash_tmp", "write")
  elseif tmp == "none" then put(peer.tmp_root(), "none") end
  if fs.allow_temp ~= false and tmp ~= "none" then
    notes[#notes + 1] = "allow_temp mapped to /tmp " .. tmp .. " (SANDPROOF_CODEX_TMP)"
  end
  for _, w in ipairs(fs.write_roots or {}) do
    put(w.root, "write")
    for _, sub in ipairs(w.read_only_subpaths or {}) do put(sub, "read") end
    for _, name in ipairs(w.protected_metadata_names or DEFAULT_PROTECTED) do
      -- codex itself keeps <root>/.git, .agents and .codex read-only
      -- (present or not); naming a path beneath them again makes it try
      -- to create a mount point inside its own read-only mount when the
      -- path is absent, and the run dies in bubblewrap
      local top = name:match("^([^/]+)")
      if not CODEX_PROTECTS[top] then put(join(w.root, name), "read") end
    end
  end
  for _, p in ipairs(fs.deny_write or {}) do put(p, "read") end
  for _, p in ipairs(fs.deny_read or {}) do put(p, "none") end
  return e, order
end

local function config_toml(spec, notes, home)
  local p = spec.profile or {}
  local lines = {
    "# written by sandproof's codex adapter for one run",
    "[shell_environment_policy]",
    'inherit = "none"',
    "ignore_default_excludes = true",
    "[shell_environment_policy.set]",
  }
  local keys = {}
  for k in pairs(spec.env or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do lines[#lines + 1] = q(k) .. " = " .. q(spec.env[k]) end
  -- PROC-11: the contract's own two variables
  local allow = p.network and p.network.mode == "allow"
  lines[#lines + 1] = '"SANDPROOF_SANDBOXED" = "1"'
  lines[#lines + 1] = '"SANDPROOF_NETWORK" = ' .. q(allow and "allow" or "deny")
  lines[#lines + 1] = "[permissions.sandproof.filesystem]"
  local e, order = fs_entries(p.filesystem, notes, home)
  for _, k in ipairs(order) do lines[#lines + 1] = q(k) .. " = " .. q(e[k]) end
  lines[#lines + 1] = "[permissions.sandproof.network]"
  lines[#lines + 1] = "enabled = " .. (allow and "true" or "false")
  return table.concat(lines, "\n") .. "\n"
end

-- ---- running -----------------------------------------------------------------


-- Rust's io::Error texts end "(os error N)": N as an errno name (OUT-6)
local OS_ERRNO = { [1] = "EPERM", [2] = "ENOENT", [7] = "E2BIG", [8] = "ENOEXEC",
                   [12] = "ENOMEM", [13] = "EACCES", [16] = "EBUSY", [17] = "EEXIST",
                   [20] = "ENOTDIR", [21] = "EISDIR", [22] = "EINVAL", [26] = "ETXTBSY",
                   [30] = "EROFS", [36] = "ENAMETOOLONG", [40] = "ELOOP" }
local STRERROR = peer.STRERROR


-- Codex's own failures, told from the command's by its own messages (the
-- same rule as the bwrap adapter's; peer.outcome has the shared ones):
-- status 101 with its helper's panic "Failed to execvp PROG: TEXT (os error
-- N)"; status 1 with nothing on stdout and "error building bubblewrap
-- command: ...", "bwrap: ..." or "Error: ..." last on stderr; on macOS,
-- nothing on stdout and "sandbox-exec: ..." last (the profile refused).
local function own_failure(o, r, last)
  local exec_prog, exec_n = o.stderr:match("Failed to execvp (.-): [^\n]* %(os error (%d+)%)")
  if r.code == 101 and exec_prog and o.stdout == "" then
    local e = OS_ERRNO[tonumber(exec_n)] or ("os error " .. exec_n)
    o.kind = (e == "ENOENT" or e == "ENOTDIR") and "executable_not_found" or "application_failure"
    o.exec_error = e
  elseif r.code == 1 and o.stdout == "" and (last:match("^error building bubblewrap command: ")
          or last:match("^bwrap: ") or last:match("^Error: ")) or
         (o.stdout == "" and last:match("^sandbox%-exec: ")) then
    local n = last:match("%(os error (%d+)%)")
    local text = last:match(": ([^:]+)$")
    local step = last:match("^bwrap: ") and "bwrap" or last:match("^sandbox%-exec: ") and "seatbelt" or
                 (last:match("^Error: ") and "codex" or "policy")
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = step, errno = n and OS_ERRNO[tonumber(n)] or (text and STRERROR[text]),
                      detail = last }
  end
end

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  -- Codex refuses to lay out its helper binaries under /tmp, so its home is
  -- the scenario's other temp directory (/var/tmp/sandproof-*, removed with
  -- the scenario), never the real $HOME.
  if not t.vtmp then t:error("codex needs a home outside /tmp: no /var/tmp directory") end
  local home = t.vtmp .. "/codex-home"
  if not sp.exists(home) then assert(sp.mkdir(home)) end
  local notes = {}
  assert(sp.write(home .. "/config.toml", config_toml(spec, notes, home)))
  for _, n in ipairs(notes) do t:note("note", "codex adapter: " .. n) end
  local argv = { codex_bin(), "sandbox", "-P", "sandproof", "-C", spec.cwd, "--" }
  for _, a in ipairs(spec.command) do argv[#argv + 1] = a end
  -- In the lab (peer.spawn, no uplink): codex never reaches a model or the
  -- internet, whatever it tries.
  local r = peer.spawn(t, spec, argv, { cwd = t.vtmp,
    env = { "PATH=" .. launcher_path(), "HOME=" .. home, "CODEX_HOME=" .. home, "LC_ALL=C" } })
  return peer.result(peer.outcome("codex", spec, r, own_failure), r)
end

return M
