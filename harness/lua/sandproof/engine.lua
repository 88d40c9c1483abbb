-- sandproof.engine - loads scenarios and runs one (scenario, runner) pair.
--
-- The C host calls engine.load(file) to list or validate a scenario, and,
-- in a child process of its own per pair, engine.run_one(file, runner, opts)
-- which returns the result table the host records.  Verdicts:
--   pass / fail       the observed outcome is / is not in expect[os]; a
--                     fail carries the impact class the scenario declares
--                     for that outcome (impact), classed by sandproof.impact
--   inconclusive      the positive control failed ("control_failed"): the
--                     claim was not tested, never violated; the reason
--                     names the scenario checking the missing ability
--   skip              t:skip(reason): the host lacks a prerequisite
--   unsupported       t:unsupported(reason): the runner cannot express it;
--                     or expect[os] = { unsupported = "why" }: the scenario
--                     itself cannot run on this OS (nothing is started)
--   inconclusive      a race that did not reach its stated minimum power
--                     and saw nothing wrong (a violation seen is a fail:
--                     power bounds how much a pass proves, not a finding)
--   error             anything else: a Lua error, a missing sentinel
local sp = require "sp"
local context = require "sandproof.context"
local impact = require "sandproof.impact"

local M = {}

-- Impact classes (docs/CONTRACT.md, "Impact classes"), in the order reports
-- list them: sandproof.impact, the one classifier.
M.CLASSES = impact.CLASSES

-- The positive control failed: "control_failed" or "control_failed:<what>".
local function is_control_failed(o)
  return o == "control_failed" or o:sub(1, 15) == "control_failed:"
end

local AREAS = { fs = true, meta = true, swap = true, rt = true, net = true,
                proc = true, priv = true, setup = true, lim = true, sess = true }
local PLATFORMS = { "linux", "macos", "windows" }

local function contains(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

-- Every field a scenario may have, and its check: nil, or a message saying
-- what is wrong with value v.  A field not listed here is refused.
local function is_list(v)
  if type(v) ~= "table" then return false end
  local n = 0
  for k in pairs(v) do
    if math.type(k) ~= "integer" or k < 1 then return false end
    n = n + 1
  end
  return n == #v
end

-- nil, or what is wrong with v as a non-empty list of distinct non-empty
-- strings (a set).
local function string_set_problem(v, what)
  if not is_list(v) or #v == 0 then return what .. " must be a non-empty list of strings" end
  local seen = {}
  for i, x in ipairs(v) do
    if type(x) ~= "string" or x == "" then
      return string.format("%s[%d] must be a non-empty string (got %s)", what, i, type(x))
    end
    if seen[x] then return string.format("%s lists '%s' twice", what, x) end
    seen[x] = true
  end
  return nil
end

-- nil, or what is wrong with e as { unsupported = "why" }: exactly that
-- key, a reason of at least a few words (it is what a report shows).
local function unsupported_problem(e, what)
  for k in pairs(e) do
    if k ~= "unsupported" then
      return string.format("%s: { unsupported = \"why\" } takes no other key (got '%s')", what, tostring(k))
    end
  end
  if type(e.unsupported) ~= "string" or not e.unsupported:match("%S+%s+%S+") then
    return what .. ".unsupported must be a reason (a short sentence saying why)"
  end
  return nil
end

local FIELDS = {
  id = function(v)
    if type(v) ~= "string" or v == "" then return "scenario is missing 'id'" end
    local area = v:match("^(%l+)%.[%w_.]+$")
    if not area or not AREAS[area] then
      return string.format("id '%s' must be <area>.<name> with an area of fs., meta., swap., rt., net., proc., priv., setup., lim., sess.", v)
    end
  end,
  claim = function(v)
    if type(v) ~= "string" or v == "" then return "scenario is missing 'claim'" end
  end,
  clauses = function(v)
    if v == nil then return "scenario is missing 'clauses'" end
    local bad = string_set_problem(v, "clauses")
    if bad then return bad end
    for i, c in ipairs(v) do
      if not c:match("^%u+%-%d+$") then
        return string.format("clauses[%d] '%s' is not a clause id (AREA-N, docs/CONTRACT.md)", i, c)
      end
    end
  end,
  -- per platform, the outcomes that pass, or { unsupported = "why" }: the
  -- scenario cannot be run on that OS (no hold, no network namespace, a
  -- Linux-only or a macOS-only fact) and says why, in the file itself
  expect = function(v)
    if type(v) ~= "table" then return "scenario is missing 'expect'" end
    for k in pairs(v) do
      local known = false
      for _, os in ipairs(PLATFORMS) do known = known or k == os end
      if not known then return string.format("expect.%s: unknown platform", tostring(k)) end
    end
    local runs = false
    for _, os in ipairs(PLATFORMS) do
      local e = v[os]
      if e == nil then
        return string.format("expect.%s must be a non-empty list of outcomes or { unsupported = \"why\" }", os)
      end
      local bad
      if type(e) == "table" and e.unsupported ~= nil then
        bad = unsupported_problem(e, "expect." .. os)
      else
        bad = string_set_problem(e, "expect." .. os)
        runs = true
      end
      if bad then return bad end
    end
    if not runs then return "expect: unsupported on every platform (no platform runs it)" end
  end,
  run = function(v)
    if v == nil then return "scenario is missing 'run'" end
    if type(v) ~= "function" then return "'run' must be a function (got " .. type(v) .. ")" end
  end,
  -- a capability claim the unconfined control meets too (test_catalogue)
  unconfined_passes = function(v)
    if v ~= nil and type(v) ~= "boolean" then return "unconfined_passes must be true or false" end
  end,
  -- what the scenario asks of a runner beyond t:sandbox (context.CAPABILITIES)
  needs = function(v)
    if v == nil then return nil end
    local bad = string_set_problem(v, "needs")
    if bad then return bad end
    for i, c in ipairs(v) do
      if not context.CAPABILITIES[c] then
        return string.format("needs[%d]: unknown capability '%s'", i, c)
      end
    end
  end,
  -- failing outcome -> impact class; a key ending in '*' is a prefix
  -- ("errno_*": every "errno_<NAME>"), the longest matching one wins; "*"
  -- alone, the default, covers every other failing outcome
  impact = function(v) return impact.problem(v, is_control_failed) end,
  -- why the scenario needs the machine to itself (`run --jobs`: no other
  -- pair runs while it does): a reason, a short sentence naming what
  -- other pairs would change (docs/SCENARIOS.md, exclusive)
  exclusive = function(v)
    if v == nil then return nil end
    if type(v) ~= "string" or not v:match("%S+%s+%S+%s+%S+") then
      return "exclusive must be the reason the scenario needs the machine to itself (a short sentence)"
    end
  end,
  -- the scenario whose claim is the ability the positive control needs
  control = function(v)
    if v == nil then return nil end
    if type(v) ~= "string" or not v:match("^%l+%.[%w_.]+$") then
      return "control must be the id of the scenario checking what the positive control needs"
    end
  end,
}
local FIELD_ORDER = { "id", "claim", "expect", "run", "clauses", "unconfined_passes", "needs",
                      "impact", "control", "exclusive" }

local impact_of = impact.of
M.impact_of = impact_of

-- nil, or what is wrong between impact and expect: an outcome expected on
-- every platform never fails, so it has no class; control must not name
-- the scenario itself.
local function impact_problem(sc)
  for o in pairs(sc.impact) do
    local everywhere = true
    for _, os in ipairs(PLATFORMS) do
      local e = sc.expect[os]
      everywhere = everywhere and (e.unsupported ~= nil or contains(e, o))
    end
    if everywhere then
      return string.format("impact.%s: '%s' is expected on every platform that runs the scenario", o, o)
    end
  end
  if sc.control == sc.id then return "control names the scenario itself" end
end

local function validate(sc, file)
  if type(sc) ~= "table" then
    return nil, file .. ": the file must return scenario { ... }"
  end
  for k in pairs(sc) do
    if not FIELDS[k] then
      return nil, string.format("%s: unknown scenario field '%s'", file, tostring(k))
    end
  end
  for _, k in ipairs(FIELD_ORDER) do
    local bad = FIELDS[k](sc[k])
    if bad then return nil, file .. ": " .. bad end
  end
  local bad = impact_problem(sc)
  if bad then return nil, file .. ": " .. bad end
  -- the engine's own fields, set on a private copy (the file's table
  -- stays as written)
  local out = {}
  for k, v in pairs(sc) do out[k] = v end
  out.area = sc.id:match("^(%l+)%.")
  out.file = file
  return out
end

-- An adapter declares every capability (context.CAPABILITIES) true or
-- false, and nothing else: nil, or what is wrong (sandproof.runners.problem,
-- the one check every adapter passes).
function M.adapter_problem(name, adapter)
  return require("sandproof.runners").problem("runner " .. name, adapter)
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
    claim = sc.claim, file = sc.file, expect = sc.expect, impact = impact.text(sc.impact), exclusive = sc.exclusive,
  }
end

-- A failed positive control: nothing was tested, so the verdict is
-- inconclusive, with what failed (the scenario's last "positive control
-- failed: ..." note) and the scenario that checks the missing ability.
local function control_verdict(res, sc, evidence)
  if not sc.control then
    res.verdict = "error"
    res.reason = sc.file .. ": the positive control failed but the scenario declares no 'control'"
    return
  end
  local what = "the positive control failed"
  for i = #evidence, 1, -1 do
    local body = evidence[i].body
    if type(body) == "string" and body:match("^positive control failed") then what = body break end
  end
  res.verdict = "inconclusive"
  res.reason = string.format("%s; claim not tested (the ability is checked by %s)", what, sc.control)
end

-- A fail's reason when the runner declared (does_not_enforce) a clause of
-- the scenario's not enforced: what it said, the verdict unchanged; nil
-- otherwise.
local function declared_not_enforced(adapter, sc)
  local said = {}
  for _, c in ipairs(sc.clauses) do
    local why = (adapter.does_not_enforce or {})[c]
    if why then said[#said + 1] = c .. ": " .. why end
  end
  if #said == 0 then return nil end
  return "the runner declares it does not enforce " .. table.concat(said, "; ")
end

-- The platform whose expectations judge a run on OS os (sp.os): itself,
-- or macos for the posix-sim stand-in; nil for a bring-up platform.
local EXPECT_OS = { linux = "linux", macos = "macos", windows = "windows", ["posix-sim"] = "macos" }
function M.expect_os(os) return EXPECT_OS[os] end

-- One pair: the scenario in file against the runner of spec (a canonical
-- spec, sandproof.runners.resolve's).
function M.run_one(file, spec, opts)
  local started = sp.now_ms()
  local runner_name = spec
  local res = { scenario = nil, runner = runner_name, seed = opts.seed,
                attempts = 0, windows_hit = 0, min_power = 0, evidence = {} }
  local sc, err = M.load(file)
  if not sc then
    res.verdict, res.reason = "error", err
    return res
  end
  res.scenario = sc.id
  -- expect names linux, macos and windows; a bring-up platform (posix)
  -- has no expectation, so nothing it observes can pass or fail.  The
  -- posix-sim stand-in is judged by macOS's expectations (it exists to
  -- show the macOS scenarios fail when nothing confines), and records
  -- under its own OS name: nothing it records is a macOS result.
  local key = M.expect_os(sp.os)
  local expected = key and sc.expect[key]
  if expected and expected.unsupported then
    -- declared in the scenario: nothing runs on this OS
    res.verdict = "unsupported"
    res.reason = string.format("the scenario is unsupported on %s: %s", sp.os, expected.unsupported)
    res.duration_ms = math.floor(sp.now_ms() - started)
    return res
  end
  res.expected = expected and table.concat(expected, ",") or ""
  -- the adapter, checked as when the run began (sandproof.runners)
  local adapter, name = require("sandproof.runners").load(spec, opts.paths)
  if not adapter then
    res.verdict, res.reason = "error", name
    return res
  end
  runner_name, res.runner = name, name
  -- a runner missing from this machine is a skip, never a fail
  if adapter.available then
    local avail, why = adapter.available(opts.paths)
    if not avail then
      res.verdict, res.reason = "skip", tostring(why or (runner_name .. " not available"))
      res.duration_ms = math.floor(sp.now_ms() - started)
      return res
    end
  end
  local t, terr = context.new(sc, spec, { seed = opts.seed, paths = opts.paths, adapter = adapter,
                                           runner_name = runner_name })
  if not t then
    res.verdict, res.reason = "error", terr
    return res
  end
  -- what the scenario asks beyond t:sandbox, against what the runner has
  for _, cap in ipairs(sc.needs or {}) do
    local why = t:lacks(cap)
    if why then
      t:finish()
      res.verdict, res.reason = "unsupported", why
      res.duration_ms = math.floor(sp.now_ms() - started)
      return res
    end
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
    if not expected then
      res.verdict = "unsupported"
      res.reason = string.format("the scenario states no expected outcome on %s", sp.os)
    elseif is_control_failed(res.observed) then
      control_verdict(res, sc, t.evidence)
    elseif not contains(expected, res.observed) then
      res.impact = impact_of(sc.impact, res.observed)
      res.verdict = res.impact and "fail" or "error"
      if not res.impact then
        res.reason = string.format("%s: failing outcome '%s' has no impact class (add it to impact)",
                                   sc.file, res.observed)
      else
        res.reason = declared_not_enforced(adapter, sc)
      end
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
