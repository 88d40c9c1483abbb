-- sandproof.engine - loads scenarios and runs one (scenario, runner) pair.
--
-- The C host calls engine.load(file) to list or validate a scenario, and,
-- in a child process of its own per pair, engine.run_one(file, runner, opts)
-- which returns the result table the host records.  Verdicts:
--   pass / fail       the observed outcome is / is not in expect[os]
--   skip              t:skip(reason): the host lacks a prerequisite
--   unsupported       t:unsupported(reason): the runner cannot express it
--   inconclusive      a race that did not reach its stated minimum power
--                     and saw nothing wrong (a violation seen is a fail:
--                     power bounds how much a pass proves, not a finding)
--   error             anything else: a Lua error, a missing sentinel
local sp = require "sp"
local context = require "sandproof.context"

local M = {}

local AREAS = { fs = true, meta = true, swap = true, rt = true, net = true,
                proc = true, priv = true, setup = true, lim = true }
local PLATFORMS = { "linux", "macos", "windows" }

local function validate(sc, file)
  if type(sc) ~= "table" then
    return nil, file .. ": the file must return scenario { ... }"
  end
  for _, k in ipairs { "id", "claim" } do
    if type(sc[k]) ~= "string" or sc[k] == "" then
      return nil, string.format("%s: scenario is missing '%s'", file, k)
    end
  end
  local area = sc.id:match("^(%l+)%.")
  if not area or not AREAS[area] then
    return nil, string.format("%s: id '%s' must start with an area (fs., meta., swap., rt., net., proc., priv., setup., lim.)",
      file, sc.id)
  end
  if type(sc.expect) ~= "table" then
    return nil, file .. ": scenario is missing 'expect'"
  end
  for _, os in ipairs(PLATFORMS) do
    local e = sc.expect[os]
    if type(e) ~= "table" or #e == 0 then
      return nil, string.format("%s: expect.%s must be a non-empty list of outcomes", file, os)
    end
  end
  for k in pairs(sc.expect) do
    local known = false
    for _, os in ipairs(PLATFORMS) do known = known or k == os end
    if not known then return nil, string.format("%s: expect.%s: unknown platform", file, k) end
  end
  if type(sc.run) ~= "function" then
    return nil, file .. ": scenario is missing 'run'"
  end
  if type(sc.clauses) ~= "table" or #sc.clauses == 0 then
    return nil, file .. ": scenario is missing 'clauses'"
  end
  sc.area = area
  sc.file = file
  return sc
end

-- Load one scenario file in a fresh environment.  Returns the scenario or
-- nil and a message naming file:line.
function M.load(file)
  local env = setmetatable({}, { __index = _G })
  env.scenario = function(t) return t end
  local chunk, err = loadfile(file, "t", env)
  if not chunk then return nil, err end
  local ok, sc = pcall(chunk)
  if not ok then return nil, tostring(sc) end
  return validate(sc, file)
end

-- A short, flat summary of a scenario for listing and for the database.
function M.describe(sc)
  return {
    id = sc.id, area = sc.area, clauses = table.concat(sc.clauses, ","),
    claim = sc.claim, file = sc.file, expect = sc.expect,
  }
end

local function contains(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

function M.run_one(file, runner_name, opts)
  local started = sp.now_ms()
  local res = { scenario = nil, runner = runner_name, seed = opts.seed,
                attempts = 0, windows_hit = 0, min_power = 0, evidence = {} }
  local sc, err = M.load(file)
  if not sc then
    res.verdict, res.reason = "error", err
    return res
  end
  res.scenario = sc.id
  local expected = sc.expect[sp.os]
  res.expected = table.concat(expected, ",")
  -- a runner missing from this machine is a skip, never a fail
  local okr, adapter = pcall(require, runner_name)
  if okr and type(adapter) == "table" and adapter.available then
    local avail, why = adapter.available(opts.paths)
    if not avail then
      res.verdict, res.reason = "skip", tostring(why or (runner_name .. " not available"))
      res.duration_ms = math.floor(sp.now_ms() - started)
      return res
    end
  end
  local t, terr = context.new(sc, runner_name, opts)
  if not t then
    res.verdict, res.reason = "error", terr
    return res
  end
  local ok, observed = xpcall(sc.run, function(e)
    if type(e) == "table" then return e end
    return debug.traceback(tostring(e), 2)
  end, t)
  t:finish()
  res.attempts = t.power.attempts
  if t.power.min > 0 or t.power.windows > 0 then -- a race states its power
    res.windows_hit, res.min_power = t.power.windows, t.power.min
  end
  res.evidence = t.evidence
  if ok then
    res.observed = tostring(observed)
    if not contains(expected, res.observed) then
      res.verdict = "fail"
    elseif t.power.min > 0 and t.power.windows < t.power.min then
      res.verdict = "inconclusive"
      res.reason = string.format("race power %d < minimum %d", t.power.windows, t.power.min)
    else
      res.verdict = "pass"
    end
  elseif type(observed) == "table" and observed.sp_skip then
    res.verdict, res.reason = "skip", observed.sp_skip
  elseif type(observed) == "table" and observed.sp_unsupported then
    res.verdict, res.reason = "unsupported", observed.sp_unsupported
  elseif type(observed) == "table" and observed.sp_error then
    res.verdict, res.reason = "error", observed.sp_error
  else
    res.verdict, res.reason = "error", tostring(observed)
    t:note("traceback", tostring(observed))
  end
  res.duration_ms = math.floor(sp.now_ms() - started)
  return res
end

return M
