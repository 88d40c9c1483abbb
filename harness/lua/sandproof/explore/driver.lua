-- sandproof.explore.driver - `sandproof explore` (docs/EXPLORE.md): runs
-- generated programs against one runner, each in a fresh context (its own
-- temp directory, fixtures, lab when it connects), shrinks every violating
-- program and writes it as a scenario file.  Called by harness/explore.c
-- in the harness process itself; returns a summary table the C side
-- records in the database and turns into the exit status.
local sp = require "sp"
local context = require "sandproof.context"
local engine = require "sandproof.engine"
local gen = require "sandproof.explore.gen"
local oracle = require "sandproof.explore.oracle"
local shrink = require "sandproof.explore.shrink"
local emit = require "sandproof.explore.emit"

local M = {}

-- Runs prog once against runner: "violation", class, outcome; or "confined",
-- "untested" (control failed, skip, unsupported) or "error", with a reason.
function M.run_program(runner, paths, prog)
  local t, err = context.new({ id = "explore.p" .. prog.seed }, runner, { seed = prog.seed, paths = paths })
  if not t then return "error", nil, err end
  local ok, outcome = xpcall(oracle.run, function(e)
    if type(e) == "table" then return e end
    return debug.traceback(tostring(e), 2)
  end, t, prog)
  t:finish()
  if not ok then
    if type(outcome) == "table" then
      local why = outcome.sp_skip or outcome.sp_unsupported
      if why then return "untested", nil, why end
      return "error", nil, tostring(outcome.sp_error)
    end
    return "error", nil, tostring(outcome)
  end
  local class = oracle.class_of(outcome)
  if class then return "violation", class, outcome end
  if outcome == "confined" then return "confined", nil, outcome end
  return "untested", nil, outcome
end

-- Coverage of the grammar: adjacent op kinds and names met in one op.
local function cover(cov, prog)
  local prev
  for _, op in ipairs(prog.ops) do
    if prev then cov.op_pairs[prev .. ">" .. op[1]] = true end
    prev = op[1]
    local ns = gen.op_names(op)
    for i = 1, #ns do
      for j = i + 1, #ns do
        local a, b = ns[i], ns[j]
        if a > b then a, b = b, a end
        cov.name_pairs[a .. "|" .. b] = true
      end
    end
  end
end
local function count(set) local n = 0 for _ in pairs(set) do n = n + 1 end return n end
M.cover = cover

-- The coverage of cov as { op_pairs, op_pairs_total, name_pairs,
-- name_pairs_total }.
function M.coverage(cov)
  return { op_pairs = count(cov.op_pairs), op_pairs_total = #gen.OPS * #gen.OPS,
           name_pairs = count(cov.name_pairs),
           name_pairs_total = #gen.NAMES * (#gen.NAMES + 1) // 2 } -- a name with itself too
end

-- Shrinks a violating program; the candidate must violate with the same
-- class (re-run in a fresh context each time).
local function minimise(o, prog, class)
  local runs = 0
  local best = shrink.program(prog, function(p)
    runs = runs + 1
    local kind, c = M.run_program(o.runner, o.paths, p)
    return kind == "violation" and c == class
  end)
  local _, _, outcome = M.run_program(o.runner, o.paths, best)
  return best, outcome, runs
end

-- A violation whose outcome an earlier one of the run had (the same class
-- and labels) is recorded with that one's shrunk program and file, not
-- shrunk again: shrinking is most of an explore run's time, and it would
-- find a variant of the same finding.
local function violation(o, k, prog, class, outcome, res)
  local shrunk, s_outcome, runs = prog, outcome, 0
  local seen = o.seen[outcome]
  local file, id
  if seen then
    shrunk, s_outcome, file, id = seen.shrunk, seen.outcome, seen.file, seen.id
  else
    local t0 = sp.now_ms()
    if not o.no_shrink then shrunk, s_outcome, runs = minimise(o, prog, class) end
    res.shrink_ms = res.shrink_ms + math.floor(sp.now_ms() - t0)
    file, id = emit.write(o.out, shrunk, { runner = o.runner, seed = o.seed, outcome = s_outcome or outcome })
    o.seen[outcome] = { shrunk = shrunk, outcome = s_outcome, file = file, id = id, n = #res.violations + 1 }
  end
  local v = { index = k, program_seed = prog.seed, class = class, what = outcome,
              program = gen.program_text(prog), shrunk = gen.program_text(shrunk),
              shrunk_ops = #shrunk.ops, shrink_runs = runs, scenario = file or "",
              scenario_id = id and ("fs.found_" .. id) or "" }
  -- as the engine's result of the emitted scenario, for the database
  v.result = { verdict = "fail", impact = class, observed = s_outcome or outcome,
               expected = "confined", attempts = 1 + runs, seed = prog.seed,
               evidence = { { kind = "note", body = "found by program " .. k .. ": " .. outcome },
                            { kind = "note", body = "program: " .. v.program },
                            { kind = "note", body = seen and string.format("same outcome as violation %d: its shrunk program %s", seen.n, v.shrunk)
                                                       or ("shrunk (" .. runs .. " runs): " .. v.shrunk) },
                            { kind = "note", body = "scenario file: " .. (file or "not written") } } }
  res.violations[#res.violations + 1] = v
  if seen then
    print(string.format("violation %d: program %d (seed %d): %s\n  same outcome as violation %d (not shrunk again)",
      #res.violations, k, prog.seed, outcome, seen.n))
    return
  end
  print(string.format("violation %d: program %d (seed %d): %s\n  shrunk to %d op(s) in %d runs: %s\n  scenario: %s",
    #res.violations, k, prog.seed, outcome, #shrunk.ops, runs, v.shrunk, file or ("not written: " .. tostring(id))))
end

M.MAX_ERRORS_IN_A_ROW = 20

-- o: runner, paths, seed, budget (programs; 0: none), time_s (0: none),
-- out, max_ops, no_shrink.  Returns the summary.
function M.main(o)
  local okr, adapter = pcall(require, o.runner)
  local bad = not okr and tostring(adapter) or engine.adapter_problem(o.runner, adapter)
  if bad then return { usage_error = bad } end
  if adapter.available then
    local avail, why = adapter.available(o.paths)
    if not avail then return { usage_error = "runner " .. o.runner .. " is not available here: " .. tostring(why) } end
  end
  if o.check_only then return {} end
  local res = { runner = o.runner, seed = o.seed, programs = 0, confined = 0, untested = 0,
                errors = 0, violations = {}, first_error = nil, shrink_ms = 0 }
  local cov = { op_pairs = {}, name_pairs = {} }
  o.seen = {}
  local started = sp.now_ms()
  local k, in_a_row = 0, 0
  while (o.budget == 0 or k < o.budget) and (o.time_s == 0 or sp.now_ms() - started < o.time_s * 1000) do
    k = k + 1
    local prog = gen.program(o.seed, k, o.max_ops)
    cover(cov, prog)
    local kind, class, outcome = M.run_program(o.runner, o.paths, prog)
    res.programs = res.programs + 1
    if kind == "violation" then violation(o, k, prog, class, outcome, res)
    elseif kind == "confined" then res.confined = res.confined + 1
    elseif kind == "untested" then res.untested = res.untested + 1
    else
      res.errors = res.errors + 1
      res.first_error = res.first_error or string.format("program %d (seed %d): %s", k, prog.seed, tostring(outcome))
    end
    -- a harness or host that cannot run programs any more: stop, said
    -- (exit 3), rather than count errors at full speed
    in_a_row = kind == "error" and in_a_row + 1 or 0
    if in_a_row >= M.MAX_ERRORS_IN_A_ROW then
      res.stopped = string.format("stopped after %d programs in a row that could not be run (last: %s)",
                                  in_a_row, tostring(outcome))
      break
    end
  end
  res.elapsed_ms = math.floor(sp.now_ms() - started) - res.shrink_ms
  for k, v in pairs(M.coverage(cov)) do res[k] = v end
  return res
end

-- M.main's summary as JSON (harness/explore.c reads it).
function M.main_json(o)
  local res = M.main(o)
  local v = res.violations
  res.violations_n = v and #v or nil
  if v then setmetatable(v, { __jsonarray = true }) end
  return sp.json_encode(res)
end

return M
