-- sandproof.runners - what `--runner` and `--adapter` name, resolved to a
-- checked adapter: the one place a runner argument is parsed, an adapter
-- file found, loaded and checked (docs/RUNNERS.md, "Naming a runner").
--
--   NAME                  a built-in adapter (<harness>/runners/NAME.lua), else
--                         NAME.lua in a directory of SANDPROOF_RUNNER_PATH
--   [NAME=]contract:PATH  a program that speaks the contract (sandproof.contract);
--                         a PATH without '/' is looked up on $PATH
--   [NAME=]FILE.lua       a Lua adapter file (also [NAME=]adapter:FILE, and
--                         `--adapter FILE.lua`); a FILE holds a '/' or ends in .lua
--
-- resolve() runs in the harness's process: it checks everything once (exit
-- 2 on any problem) and gives the canonical spec a scenario process is
-- handed, which load() turns into the adapter again without searching:
-- NAME for a built-in, NAME=adapter:/ABS/FILE.lua, NAME=contract:/ABS/PATH.
local sp = require "sp"
local context = require "sandproof.context"

local M = {}

M.NAME_MAX = 32

-- The directories adapters are looked up in, in order: the built-in ones
-- (<harness>/runners; an installed sandproof points paths.harness at its
-- data directory, so this follows), then each directory of
-- SANDPROOF_RUNNER_PATH (':'-separated; ';' on Windows, whose paths hold
-- ':').  A built-in name is never looked up further: a file elsewhere
-- cannot pose as `ref`.
function M.search_path(paths)
  local dirs = { paths.harness .. "/runners" }
  local sep = (sp.os == "windows" or sp.os == "wine") and ";" or ":"
  for d in (os.getenv("SANDPROOF_RUNNER_PATH") or ""):gmatch("[^" .. sep .. "]+") do
    dirs[#dirs + 1] = d
  end
  return dirs
end

local function builtin_file(paths, name) return paths.harness .. "/runners/" .. name .. ".lua" end

-- nil, or what is wrong with name as a runner's name.
function M.name_problem(name)
  if type(name) ~= "string" or name == "" then return "a runner name must not be empty" end
  if #name > M.NAME_MAX or not name:match("^[a-z0-9][a-z0-9_-]*$") then
    return string.format("bad runner name '%s': lower-case letters, digits, '_' and '-', " ..
      "starting with a letter or digit, at most %d characters", name, M.NAME_MAX)
  end
end

-- The name a file gives when none is: its base name (without .lua),
-- lower-cased, every other character '_'; nil when nothing is left.
local function derived_name(path, suffix)
  local base = path:match("([^/\\]*)$") or ""
  if suffix then base = base:gsub("%.lua$", "") end
  base = base:lower():gsub("[^a-z0-9_-]", "_"):gsub("^[_-]+", ""):sub(1, M.NAME_MAX)
  return base ~= "" and base or nil
end

-- { name (given or nil), kind = "name" | "contract" | "adapter", path },
-- or nil and what is wrong with arg.
function M.parse(arg)
  if type(arg) ~= "string" or arg == "" then return nil, "empty runner name" end
  local given, rest = arg:match("^([^=/:\\]*)=(.*)$")
  if given then
    local bad = M.name_problem(given)
    if bad then return nil, bad .. " (in '" .. arg .. "')" end
  else
    rest = arg
  end
  local kind, path = "name", nil
  if rest:sub(1, 9) == "contract:" then
    kind, path = "contract", rest:sub(10)
  elseif rest:sub(1, 8) == "adapter:" then
    kind, path = "adapter", rest:sub(9)
  elseif rest:find("[/\\]") or rest:match("%.lua$") then
    kind, path = "adapter", rest
  end
  if kind == "name" then
    if given then
      return nil, string.format("'%s': after NAME= comes contract:PATH or FILE.lua", arg)
    end
    local bad = M.name_problem(rest)
    if bad then return nil, "unknown runner '" .. rest .. "': " .. bad end
    return { name = rest, kind = "name" }
  end
  if path == "" then return nil, string.format("'%s': %s: needs a path", arg, kind) end
  return { name = given, kind = kind, path = path }
end

-- path made absolute, its directory canonical and its last component
-- kept (a symlink to the program stays the name it is run by, and its
-- sidecar is looked for beside it); nil, message when the directory is not
-- there.
local function absolute(path)
  local dir, base = path:match("^(.*)[/\\]([^/\\]+)$")
  if not dir then dir, base = ".", path end
  if dir == "" then dir = "/" end
  local real, err = sp.realpath(dir)
  if not real then return nil, err end
  return (real:sub(-1) == "/" and real or real .. "/") .. base
end

-- The checks every adapter passes, built-in or not (docs/RUNNERS.md): nil,
-- or what is wrong, beginning with `where` ("runner NAME" or "runner NAME
-- (FILE)").
function M.problem(where, adapter)
  if type(adapter) ~= "table" then return where .. ": the adapter must return a table" end
  local caps = adapter.capabilities
  if type(caps) ~= "table" then return where .. ": the adapter declares no capabilities" end
  for k, v in pairs(caps) do
    if not context.CAPABILITIES[k] then
      return string.format("%s: unknown capability '%s'", where, tostring(k))
    end
    if type(v) ~= "boolean" then
      return string.format("%s: capabilities.%s must be true or false", where, k)
    end
  end
  local all = {}
  for k in pairs(context.CAPABILITIES) do all[#all + 1] = k end
  table.sort(all)
  for _, k in ipairs(all) do
    if caps[k] == nil then return string.format("%s: capabilities.%s is not declared", where, k) end
  end
  if type(adapter.sandbox) ~= "function" then return where .. ": the adapter has no sandbox function" end
  for _, f in ipairs { "available", "version" } do
    if adapter[f] ~= nil and type(adapter[f]) ~= "function" then
      return string.format("%s: %s must be a function", where, f)
    end
  end
  if adapter.name ~= nil and type(adapter.name) ~= "string" then return where .. ": name must be a string" end
  local scale = adapter.timeout_scale
  if scale ~= nil and (math.type(scale) ~= "integer" or scale < 1 or scale > 100) then
    return where .. ": timeout_scale must be an integer from 1 to 100"
  end
  -- a capability declared is a function there to call
  for _, cf in ipairs { { "doctor", "doctor" }, { "gc", "gc" }, { "gc", "gc_async" }, { "sessions", "session" } } do
    if caps[cf[1]] and type(adapter[cf[2]]) ~= "function" then
      return string.format("%s: capabilities.%s is true but it has no %s function", where, cf[1], cf[2])
    end
  end
  local dne = require("sandproof.contract").does_not_enforce_problem(adapter.does_not_enforce,
                                                                   where .. ": does_not_enforce")
  if dne then return dne end
  if adapter.reasons ~= nil and type(adapter.reasons) ~= "table" then
    return where .. ": reasons must be a table"
  end
  for k, v in pairs(adapter.reasons or {}) do
    if caps[k] ~= false or type(v) ~= "string" then
      return string.format("%s: reasons.%s must explain a capability it lacks", where, tostring(k))
    end
  end
  return nil
end

-- A Lua adapter file, run as require runs a module (its name and path as
-- arguments): the table it returns, or nil and the message.
local function load_file(name, file)
  local chunk, err = loadfile(file, "t")
  if not chunk then return nil, err end
  local ok, a = pcall(chunk, name, file)
  if not ok then return nil, file .. ": " .. tostring(a) end
  return a
end

-- The adapter a parsed runner names (p.name set), unchecked, and where it
-- came from ("runner NAME (FILE)"); nil, where and the message when it
-- does not load.
local function load_parsed(p, paths)
  local where = p.kind == "contract" and string.format("runner %s (contract:%s)", p.name, p.path)
             or p.kind == "adapter" and string.format("runner %s (%s)", p.name, p.path)
             or "runner " .. p.name
  if p.kind == "contract" then
    local a, err = require("sandproof.contract").for_path(p.name, p.path)
    return a, where, err
  elseif p.kind == "adapter" then
    local a, err = load_file(p.name, p.path)
    return a, where, err
  end
  if not sp.exists(builtin_file(paths, p.name)) then return nil, where, "not a built-in adapter" end
  local ok, a = pcall(require, p.name)
  if not ok then return nil, where, tostring(a) end
  return a, where
end

-- The checked adapter of a canonical spec (resolve's), and its name: nil
-- and the message naming the runner, its file and the field when it does
-- not load or is malformed.
function M.load(spec, paths)
  local p, err = M.parse(spec)
  if not p then return nil, err end
  if p.kind ~= "name" then p.name = p.name or derived_name(p.path, p.kind == "adapter") end
  local a, where, lerr = load_parsed(p, paths)
  if lerr then return nil, where .. ": " .. lerr end
  local bad = M.problem(where, a)
  if bad then return nil, bad end
  return a, p.name
end

-- NAME.lua in the first directory of SANDPROOF_RUNNER_PATH holding it.
local function search(paths, name)
  local dirs = M.search_path(paths)
  for i = 2, #dirs do
    local f = dirs[i] .. "/" .. name .. ".lua"
    local st = sp.lstat(f)
    if st then return f end
  end
  return nil, string.format("unknown runner '%s': no %s.lua among the built-in adapters (%s)%s", name, name,
    dirs[1], #dirs > 1 and " or in SANDPROOF_RUNNER_PATH (" .. table.concat(dirs, ", ", 2) .. ")"
                       or "; SANDPROOF_RUNNER_PATH is not set")
end

-- nil, or what is wrong with the file a contract runner or an adapter
-- names; p.path made absolute, p.name given or made from the file's name.
local function file_problem(p, arg, paths)
  local what = p.kind == "contract" and "contract:" .. p.path or "adapter " .. p.path
  local abs, aerr = absolute(p.path)
  if not abs then return what .. ": " .. tostring(aerr) end
  if p.kind == "contract" then
    local ok, xerr = sp.executable(abs)
    if not ok then return string.format("contract:%s: cannot be run: %s", p.path, tostring(xerr)) end
  else
    local real, rerr = sp.realpath(abs)
    if not real then return what .. ": " .. tostring(rerr) end
    local st = sp.lstat(real)
    if not (st and st.type == "file") then return what .. ": not a file" end
  end
  p.path = abs
  p.name = p.name or derived_name(abs, p.kind == "adapter")
  if not p.name then
    return string.format("'%s': no name can be made from the file's name; give one (NAME=%s)", arg, arg)
  end
  local bad = M.name_problem(p.name)
  if bad then return bad .. string.format(" (made from '%s'; give one: NAME=%s)", p.path, arg) end
  if sp.exists(builtin_file(paths, p.name)) then
    return string.format("runner name '%s' is a built-in adapter's; name this one, e.g. my%s=%s",
      p.name, p.name, arg)
  end
end

-- What arg (a --runner element, or --adapter's FILE) names: { name, spec
-- (canonical), timeout_scale }, every check done; nil and the message
-- naming what is wrong (the harness exits 2 with it).
function M.resolve(arg, paths)
  local p, err = M.parse(arg)
  if not p then return nil, err end
  if p.kind == "name" and not sp.exists(builtin_file(paths, p.name)) then
    local f, serr = search(paths, p.name)
    if not f then return nil, serr end
    p.kind, p.path = "adapter", f
  end
  if p.kind == "contract" and not p.path:find("[/\\]") then
    -- a bare program name is looked up on PATH, as a shell does
    for d in (os.getenv("PATH") or ""):gmatch("[^:]+") do
      if sp.executable(d .. "/" .. p.path) then p.path = d .. "/" .. p.path break end
    end
  end
  if p.kind ~= "name" then
    local bad = file_problem(p, arg, paths)
    if bad then return nil, bad end
  end
  local spec = p.kind == "name" and p.name or string.format("%s=%s:%s", p.name, p.kind, p.path)
  local a, lerr = M.load(spec, paths)
  if not a then return nil, lerr end
  return { name = p.name, spec = spec, timeout_scale = a.timeout_scale or 1 }
end

-- The version each canonical spec's runner reports, as a list of { name,
-- text } in the order given: "not installed" when it says it is not
-- available, "unknown" when it does not load or say.  specs nil: every
-- adapter there is: the built-in ones, then those on SANDPROOF_RUNNER_PATH,
-- each directory's by name.
function M.versions(specs, paths)
  if specs == nil then
    specs = {}
    local seen = {}
    for i, d in ipairs(M.search_path(paths)) do
      local files = sp.listdir(d) or {}
      table.sort(files)
      for _, f in ipairs(files) do
        local n = f:match("^(.*)%.lua$")
        if n and not seen[n] and not M.name_problem(n) then
          seen[n] = true
          local r = i == 1 and { spec = n } or M.resolve(d .. "/" .. f, paths)
          specs[#specs + 1] = r and r.spec or n
        end
      end
    end
  end
  local out = {}
  for _, spec in ipairs(specs) do
    local a, name = M.load(spec, paths)
    local v = "unknown"
    if not a then
      local p = M.parse(spec)
      name = p and (p.name or (p.path and derived_name(p.path, p.kind == "adapter"))) or spec
    elseif a.available and not a.available(paths) then
      v = "not installed"
    elseif a.version then
      local ok, s = pcall(a.version, paths)
      if ok and type(s) == "string" then v = s end
    end
    out[#out + 1] = { name, v }
  end
  return out
end

return M
