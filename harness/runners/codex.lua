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
local sp = require "sp"

local M = { name = "codex" }

local DEFAULT_PREFIX = "/opt/sandproof-peers"
local SYS_PATH = "/usr/local/bin:/usr/bin:/bin"

local function prefix() return os.getenv("SANDPROOF_PEERS") or DEFAULT_PREFIX end

-- an executable by name: the peers prefix first, then the harness's PATH
local function find(name, first)
  if first and sp.exists(first .. "/" .. name) then return first .. "/" .. name end
  for d in (os.getenv("PATH") or SYS_PATH):gmatch("[^:]+") do
    if sp.exists(d .. "/" .. name) then return d .. "/" .. name end
  end
  return nil
end

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

-- No runtime roots: RT scenarios are unsupported.
function M.gc() return nil end
function M.gc_async() return nil end

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

local DEFAULT_PROTECTED = { ".git/hooks", ".git/config", ".agents", ".zero" }
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
  elseif tmp == "none" then put("/tmp", "none") end
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
  lines[#lines + 1] = "[permissions.sandproof.filesystem]"
  local e, order = fs_entries(p.filesystem, notes, home)
  for _, k in ipairs(order) do lines[#lines + 1] = q(k) .. " = " .. q(e[k]) end
  lines[#lines + 1] = "[permissions.sandproof.network]"
  local allow = p.network and p.network.mode == "allow"
  lines[#lines + 1] = "enabled = " .. (allow and "true" or "false")
  return table.concat(lines, "\n") .. "\n"
end

-- ---- running -----------------------------------------------------------------

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  if spec.raw_request then return { unsupported = "codex takes no contract request" } end
  local p = spec.profile or {}
  if p.runtime then return { unsupported = "codex has no runtime roots" } end
  -- Codex refuses to lay out its helper binaries under /tmp, so its home is
  -- the scenario's other temp directory (/var/tmp/sandproof-*, removed with
  -- the scenario), never the real $HOME.
  if not t.vtmp then error({ sp_error = "codex needs a home outside /tmp: no /var/tmp directory" }, 0) end
  local home = t.vtmp .. "/codex-home"
  if not sp.exists(home) then assert(sp.mkdir(home)) end
  local notes = {}
  if p.block_unix_sockets then
    notes[#notes + 1] = "block_unix_sockets: codex has no such setting; ran without it"
  end
  if spec.output_limit_bytes then
    notes[#notes + 1] = "output_limit_bytes: codex has no output bound; ran without it"
  end
  assert(sp.write(home .. "/config.toml", config_toml(spec, notes, home)))
  for _, n in ipairs(notes) do t:note("note", "codex adapter: " .. n) end
  local argv = { codex_bin(), "sandbox", "-P", "sandproof", "-C", spec.cwd, "--" }
  for _, a in ipairs(spec.command) do argv[#argv + 1] = a end
  -- Everything runs inside the lab (no uplink): codex never reaches a model
  -- or the internet, whatever it tries.
  if not t._ctx.lab then t:lab() end
  -- Codex has no timeout of its own: the harness stops it a little after
  -- the request's timeout, and the outcome says how it ended (never
  -- "timed_out", which only a runner can report).
  local r = t:spawn { argv = argv, cwd = t.vtmp,
                      env = { "PATH=" .. launcher_path(), "HOME=" .. home, "CODEX_HOME=" .. home },
                      stdin = spec.stdin, timeout_ms = (spec.timeout_ms or 30000) + 2000,
                      signal_after_ms = spec.signal_after_ms, signal = spec.signal }
  -- `codex sandbox` exits with the command's status (128+N for a signal);
  -- only the status is known, so the kind comes from it alone.
  local kind = r.code == 0 and "success" or "application_failure"
  return { outcome = { kind = kind, exit = { code = r.code, signal = r.signal },
                       stdout = r.stdout, stderr = r.stderr, denials = {} },
           runner_exit = r.code, runner_signal = r.signal,
           hold_total = r.hold_total, hold_hit = r.hold_hit, runner_stderr = r.stderr }
end

return M
