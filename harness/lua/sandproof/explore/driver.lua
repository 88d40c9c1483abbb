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
local batch = require "sandproof.explore.batch"
local universe = require "sandproof.explore.universe"

local M = {}

-- The checked adapter of runner (a canonical spec) and its name, loaded
-- once per process (a contract runner is asked its capabilities once).
local loaded = {}
local function adapter_of(runner, paths)
  if not loaded[runner] then
    local a, name = require("sandproof.runners").load(runner, paths)
    if not a then return nil, name end
    loaded[runner] = { a, name }
  end
  return loaded[runner][1], loaded[runner][2]
end

-- A context for a launch of progs: its temp directories and its lab
-- home's (universe.home_new: the universes of earlier launches there,
-- restored before use; the lab with room for progs' listeners) or, with no
-- home, fresh ones of its own.
local function launch_context(id, runner, paths, progs, home)
  local lend
  if home then
    local n = 0
    for _, p in ipairs(progs) do n = n + batch.listeners(p) end
    universe.home_reserve(home, n)
    lend = function() return universe.home_lab(home) end
  end
  local a, name = adapter_of(runner, paths)
  if not a then return nil, name end
  local t, err = context.new({ id = id }, runner, { seed = progs[1].seed, paths = paths, bare = true,
                                                    adapter = a, runner_name = name,
                                                    home = home, lend_lab = lend })
  if t and home then
    local ok, terr = pcall(universe.tidy, home)
    if not ok then t:finish() return nil, terr end
  end
  return t, err
end

-- Runs prog once against runner (in home, if given): "violation", class,
-- outcome; or "confined", "failed_closed" (held: not run after the
-- exchange), "untested" (control failed, skip, unsupported) or "error",
-- with a reason; then the hold's info (oracle.run).
function M.run_program(runner, paths, prog, home)
  local t, err = launch_context("explore.p" .. prog.seed, runner, paths, { prog }, home)
  if not t then return "error", nil, err end
  local ok, outcome, _, info = xpcall(oracle.run, function(e)
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
  if class then return "violation", class, outcome, info end
  if outcome == "confined" or outcome == "failed_closed" then return outcome, nil, outcome, info end
  return "untested", nil, outcome, info
end

-- Runs progs (one launch_key) in one context and launch (sandproof.explore.
-- batch): per program the kind ("violation", "confined", "untested"),
-- class and outcome of run_program and cut (stopped short), or the kind
-- "not_started"; nil, the reason and whether it left a process alive when
-- the launch itself failed (the caller then runs each alone, so an error
-- is one program's).
function M.run_batch(runner, paths, progs, home)
  local t, err = launch_context("explore.b" .. progs[1].seed, runner, paths, progs, home)
  if not t then return nil, err end
  local ok, res = xpcall(batch.run, function(e)
    if type(e) == "table" then return e end
    return debug.traceback(tostring(e), 2)
  end, t, progs)
  t:finish()
  if not ok and type(res) == "table" then
    return nil, tostring(res.sp_error or res.sp_skip or res.sp_unsupported), res.residue
  end
  if not ok then return nil, tostring(res) end
  -- a launch in which no program started proves nothing about any of
  -- them, and queueing them again could loop for ever
  if res[1].kind == "not_started" then return nil, "no program of the launch started" end
  for _, x in ipairs(res) do
    if x.kind == "judged" then
      local class = oracle.class_of(x.outcome)
      x.kind = class and "violation" or x.outcome == "confined" and "confined" or "untested"
      x.class = class
    end
  end
  return res
end

-- The programs of queue's next launch and the rest (queue order kept):
-- those that share the first one's launch and fit in its lab's
-- listeners, of them at most MAX_STOPPERS that may stop the sandbox
-- (batch.may_stop), those last: a
-- stop cuts the program that caused it short, and the ones after it must
-- be laid out again for the next launch.
M.MAX_STOPPERS = 2

-- What the queue asks of a queued program, worked out once: its launch
-- key (batch.launch_key), whether it may stop the sandbox, its listeners.
local function key_of(item, daemons_alone)
  local f = daemons_alone and "key_da" or "key"
  item[f] = item[f] or batch.launch_key(item.prog, daemons_alone)
  return item[f]
end
local function stops_of(item)
  if item.stops == nil then item.stops = batch.may_stop(item.prog) end
  return item.stops
end

function M.take_batch(queue, size, daemons_alone)
  local key, plain, stoppers, rest = key_of(queue[1], daemons_alone), {}, {}, {}
  local listeners = 0
  for _, item in ipairs(queue) do
    local stops = stops_of(item)
    item.listeners = item.listeners or batch.listeners(item.prog)
    local l = item.listeners
    if key_of(item, daemons_alone) ~= key or #plain + #stoppers >= size
       or (stops and #stoppers >= M.MAX_STOPPERS)
       or listeners + l > batch.LAB_LISTENERS then rest[#rest + 1] = item
    elseif stops then stoppers[#stoppers + 1] = item listeners = listeners + l
    else plain[#plain + 1] = item listeners = listeners + l end
  end
  for _, item in ipairs(stoppers) do plain[#plain + 1] = item end
  return plain, rest
end

-- Whether queue holds enough programs for the launch its first program
-- needs: that one alone (a held one), or size that share its launch, as
-- many that cannot stop the sandbox as fit beside MAX_STOPPERS that may;
-- or four launches' worth in all.  (Counting every program instead, a
-- launch under network deny took only the deny ones among size, and one
-- under allow fewer still.)
local function queue_full(queue, size, daemons_alone)
  if #queue == 0 then return false end
  local key = key_of(queue[1], daemons_alone)
  if key:find("^alone:") or #queue >= 4 * size then return true end
  local same, plain = 0, 0
  for _, item in ipairs(queue) do
    if key_of(item, daemons_alone) == key then
      same = same + 1
      if not stops_of(item) then plain = plain + 1 end
    end
  end
  return same >= size and plain >= size - M.MAX_STOPPERS
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
    local kind, c = M.run_program(o.runner, o.paths, p, o.home)
    return kind == "violation" and c == class
  end)
  local _, _, outcome = M.run_program(o.runner, o.paths, best, o.home)
  return best, outcome, runs
end

-- The database entry of violation v (the engine's result of its emitted
-- scenario), its evidence notes given.
local function record_entry(res, v, observed, runs, notes)
  v.result = { verdict = "fail", impact = v.class, observed = observed,
               expected = "confined", attempts = 1 + runs, seed = v.program_seed,
               evidence = {} }
  for i, n in ipairs(notes) do v.result.evidence[i] = { kind = "note", body = n } end
  res.violations[#res.violations + 1] = v
end

-- A violation seen in a launch of several programs (batched: their
-- number) that the program run alone does not show: recorded as seen,
-- with both observations, neither shrunk nor written as a scenario (its
-- replay would not show it).
local function unreproduced(res, k, prog, class, outcome, batched, alone)
  local v = { index = k, program_seed = prog.seed, class = class, what = outcome,
              program = gen.program_text(prog), shrunk = gen.program_text(prog),
              shrunk_ops = #prog.ops, shrink_runs = 0, scenario = "",
              scenario_id = "fs.found_unreproduced_" .. prog.seed }
  local why = string.format("seen in a launch of %d programs; the program run alone: %s", batched, tostring(alone))
  record_entry(res, v, outcome, 1, { "found by program " .. k .. ": " .. outcome, "program: " .. v.program,
                                     why, "scenario file: not written (not reproduced alone)" })
  print(string.format("violation: program %d (seed %d): %s\n  %s: not shrunk, no scenario",
    k, prog.seed, outcome, why))
end

-- A violation whose outcome an earlier one of the run had (the same class
-- and labels) is recorded with that one's shrunk program and file, not
-- shrunk again: shrinking is most of an explore run's time, and it would
-- find a variant of the same finding.  One seen in a launch of several
-- programs is first run alone: shrinking and the scenario need it to
-- show there.
local function violation(o, k, prog, class, outcome, res, batched)
  if batched then
    local kind, c, alone = M.run_program(o.runner, o.paths, prog, o.home)
    if kind ~= "violation" or c ~= class then
      return unreproduced(res, k, prog, class, outcome, batched, alone)
    end
    outcome = alone
  end
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
    o.seen[outcome] = { shrunk = shrunk, outcome = s_outcome, file = file, id = id, k = k }
  end
  local v = { index = k, program_seed = prog.seed, class = class, what = outcome,
              program = gen.program_text(prog), shrunk = gen.program_text(shrunk),
              shrunk_ops = #shrunk.ops, shrink_runs = runs, scenario = file or "",
              scenario_id = id and ("fs.found_" .. id) or "" }
  record_entry(res, v, s_outcome or outcome, runs, {
    "found by program " .. k .. ": " .. outcome .. (batched and string.format(" (in a launch of %d programs, and alone)", batched) or ""),
    "program: " .. v.program,
    seen and string.format("same outcome as program %d's violation: its shrunk program %s", seen.k, v.shrunk)
         or ("shrunk (" .. runs .. " runs): " .. v.shrunk),
    "scenario file: " .. (file or "not written") })
  if seen then
    print(string.format("violation: program %d (seed %d): %s\n  same outcome as program %d's (not shrunk again)",
      k, prog.seed, outcome, seen.k))
    return
  end
  print(string.format("violation: program %d (seed %d): %s\n  shrunk to %d op(s) in %d runs: %s\n  scenario: %s",
    k, prog.seed, outcome, #shrunk.ops, runs, v.shrunk, file or ("not written: " .. tostring(id))))
end

M.MAX_ERRORS_IN_A_ROW = 20

-- Records one program's result in st (the run's state: o, res, cov,
-- in_a_row); false once too many in a row could not be run (a runner or
-- host broken for good: stop, said, exit 3).
local function record(st, item, kind, class, outcome, info)
  local res = st.res
  cover(st.cov, item.prog)
  res.programs = res.programs + 1
  if info and info.held then res.held = res.held + 1 end
  if info and info.exchanged then res.exchanged = res.exchanged + 1 end
  if kind == "violation" then violation(st.o, item.k, item.prog, class, outcome, res, item.batched)
  elseif kind == "confined" then res.confined = res.confined + 1
  elseif kind == "failed_closed" then res.failed_closed = res.failed_closed + 1
  elseif kind == "untested" then res.untested = res.untested + 1
  else
    res.errors = res.errors + 1
    res.first_error = res.first_error or string.format("program %d (seed %d): %s", item.k, item.prog.seed, tostring(outcome))
  end
  st.in_a_row = kind == "error" and st.in_a_row + 1 or 0
  if st.in_a_row >= M.MAX_ERRORS_IN_A_ROW then
    res.stopped = string.format("stopped after %d programs in a row that could not be run (last: %s)",
                                st.in_a_row, tostring(outcome))
    return false
  end
  return true
end

-- Runs one program alone, its own launch.
local function alone(st, item)
  st.res.launches = st.res.launches + 1
  return record(st, item, M.run_program(st.o.runner, st.o.paths, item.prog, st.o.home))
end

-- Runs group (2 or more programs) in one launch and records each judged
-- one; returns the ones that never started (to run again), or nil to stop.
local function launch(st, group)
  local res, progs, again = st.res, {}, {}
  for i, item in ipairs(group) do progs[i] = item.prog end
  local out, why, left = M.run_batch(st.o.runner, st.o.paths, progs, st.o.home)
  res.launches = res.launches + 1
  if not out then
    res.batch_failed = (res.batch_failed or 0) + 1
    res.batch_error = res.batch_error or why
  end
  -- a runner that left a process of a launch alive: programs that start a
  -- daemon run alone from now on (batch.launch_key)
  st.daemons_alone = st.daemons_alone or left
  for i, item in ipairs(group) do
    local x = out and out[i]
    local ok = true
    if not x then -- the launch failed: each alone, so an error is one program's
      ok = alone(st, item)
    elseif x.kind == "not_started" then
      again[#again + 1] = item
    else
      res.cut = res.cut + (x.cut and 1 or 0)
      item.batched = #group
      ok = record(st, item, x.kind, x.class, x.outcome)
    end
    if not ok then return nil end
  end
  res.requeued = res.requeued + #again
  return again
end

-- The run's loop: programs generated (next_k() their numbers) while more()
-- says so, taken a launch at a time, until none is left, the time is up,
-- an interrupt came or too many could not be run.
local function loop(st, more, next_k, started)
  local o, res = st.o, st.res
  local queue = {} -- programs generated, not yet run (oldest first)
  while true do
    while not queue_full(queue, o.batch, st.daemons_alone) and more() do
      local k = next_k()
      queue[#queue + 1] = { k = k, prog = gen.program(o.seed, k, o.max_ops) }
    end
    if #queue == 0 or (o.time_s > 0 and sp.now_ms() - started >= o.time_s * 1000) then break end
    -- interrupted (SIGINT, SIGTERM, SIGHUP): stop between launches; what
    -- ran is returned and recorded
    if sp.interrupted() ~= 0 then res.interrupted = sp.interrupted() break end
    local group, rest = M.take_batch(queue, o.batch, st.daemons_alone)
    local again
    if #group == 1 then again = alone(st, group[1]) and {} or nil
    else again = launch(st, group) end
    if not again then break end
    for _, item in ipairs(rest) do again[#again + 1] = item end
    queue = again
  end
end

-- o: runner, paths, seed, budget (programs; 0: none), time_s (0: none),
-- out, max_ops, batch (programs per launch, 1: each alone), no_shrink.
-- Returns the summary.
function M.main(o)
  local adapter, name = adapter_of(o.runner, o.paths)
  if not adapter then return { usage_error = name } end
  if adapter.available then
    local avail, why = adapter.available(o.paths)
    if not avail then return { usage_error = "runner " .. name .. " is not available here: " .. tostring(why) } end
  end
  if o.check_only then return {} end
  o.batch = o.batch or 1
  local res = { runner = name, seed = o.seed, programs = 0, confined = 0, untested = 0,
                errors = 0, violations = {}, first_error = nil, shrink_ms = 0, launches = 0,
                cut = 0, requeued = 0, held = 0, exchanged = 0, failed_closed = 0 }
  local st = { o = o, res = res, cov = { op_pairs = {}, name_pairs = {} }, in_a_row = 0 }
  o.seen = {}
  local started = sp.now_ms()
  -- worker w of n (sandproof explore --jobs n) runs programs w, w + n, ...
  local step = o.workers or 1
  local k = (o.worker or 1) - step
  local function more()
    return (o.budget == 0 or k + step <= o.budget) and (o.time_s == 0 or sp.now_ms() - started < o.time_s * 1000)
  end
  -- the universes of every launch of this process, kept for the run
  -- (universe.home_new) and removed at its end, also when the loop raises
  local home, herr = universe.home_new()
  if not home then error("explore: no temp directories for the universes: " .. tostring(herr), 0) end
  o.home = home
  local ok, err = pcall(loop, st, more, function() k = k + step return k end, started)
  o.home = nil
  universe.home_remove(home)
  if not ok then error(err, 0) end
  res.elapsed_ms = math.floor(sp.now_ms() - started) - res.shrink_ms
  for f, v in pairs(M.coverage(st.cov)) do res[f] = v end
  if step > 1 then res.cov = { op_pairs = M.keys(st.cov.op_pairs), name_pairs = M.keys(st.cov.name_pairs) } end
  return res
end

function M.keys(set)
  local out = setmetatable({}, { __jsonarray = true })
  for x in pairs(set) do out[#out + 1] = x end
  table.sort(out)
  return out
end

-- The summaries of the workers of one run (sandproof explore --jobs), as
-- JSON texts, merged into the run's: counts added, violations in program
-- order, coverage the union of the sets tried, the elapsed time the
-- longest worker's (each without its shrinking), the first error the
-- earliest program's; problem (or nil): why the run stopped short.
local SUMS = { "programs", "confined", "untested", "errors", "shrink_ms", "launches", "cut",
               "requeued", "batch_failed", "held", "exchanged", "failed_closed" }
function M.merge_json(texts, problem)
  local out, cov = { violations = setmetatable({}, { __jsonarray = true }), elapsed_ms = 0 },
                   { op_pairs = {}, name_pairs = {} }
  local first_k
  for _, text in ipairs(texts) do
    local r = assert(sp.json_decode(text))
    for _, f in ipairs(SUMS) do out[f] = (out[f] or 0) + (math.tointeger(r[f]) or 0) end
    for _, f in ipairs { "runner", "seed", "stopped", "batch_error" } do
      if r[f] ~= nil and r[f] ~= sp.null and out[f] == nil then out[f] = r[f] end
    end
    out.elapsed_ms = math.max(out.elapsed_ms, math.tointeger(r.elapsed_ms) or 0)
    out.interrupted = math.max(out.interrupted or 0, math.tointeger(r.interrupted) or 0)
    for _, v in ipairs(r.violations or {}) do out.violations[#out.violations + 1] = v end
    for f, set in pairs(cov) do
      for _, x in ipairs((r.cov or {})[f] or {}) do set[x] = true end
    end
    local ek = r.first_error and r.first_error ~= sp.null and tonumber(r.first_error:match("^program (%d+)"))
    if ek and (not first_k or ek < first_k) then first_k, out.first_error = ek, r.first_error end
  end
  if out.interrupted == 0 then out.interrupted = nil end
  out.stopped = out.stopped or problem
  table.sort(out.violations, function(a, b) return a.index < b.index end)
  for f, v in pairs(M.coverage(cov)) do out[f] = v end
  out.workers = #texts
  out.violations_n = #out.violations
  return sp.json_encode(out)
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
