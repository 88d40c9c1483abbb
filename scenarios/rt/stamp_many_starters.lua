-- Many starters against one evictor.  The parent holds twelve live roots
-- and 5000 stale ones (directories with a root's name and no stamp, as
-- runs killed before stamping leave them); every stamp says "last used at
-- the epoch", so a single evictor (gc with max_roots 0; max_age_s a
-- century, so the count bound alone acts and only the lease can spare a
-- root in use, no fresher stamp) sweeps them all in name order, the live
-- roots scattered through its pass.
-- While it sweeps, runs start one after another, each on the live root
-- just ahead of the evictor's position (read from the host: the first
-- stale name still present; the same root again while the evictor has not
-- reached it), so that the evictor reaches that root while a run holds
-- it.  Each command writes a file into its TMPDIR, sleeps, and reads it
-- back: no command may find it missing or changed.  A window
-- is a run the evictor's position crossed its root during (seen on the
-- host, whatever the runner reports); a starter that finds its root
-- already evicted provisions afresh ("root missing").
-- Power: at least MIN windows.  How many a sweep gives depends on how fast
-- the evictor moves against the starters (a loaded machine slows both,
-- unevenly), so the scenario keeps making attempts until it has MIN: a
-- round runs past its usual 24 starts while the power is short, and a
-- round whose sweep ended short is followed by another, on a fresh parent
-- with fresh stale names, within a stated budget (MAX_ROUNDS rounds,
-- MAX_STARTS starts in all, no round or start begun after BUDGET_MS).
-- Every start is counted as an attempt and every crossing as a window,
-- over all rounds; a broken start ends it at once.
-- Shell-free: each live root is provisioned by a run that reports its
-- TMPDIR, then used by probe ops there; a starter's command is probe ops
-- (write, sleep 60 ms, read back) on its root's known TMPDIR.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

local LIVE, STALE = 12, 5000
local MIN, ROUND_STARTS = 3, 24
local MAX_ROUNDS, MAX_STARTS, BUDGET_MS = 4, 120, 60000

-- Drops the evidence recorded after mark (a successful run's outcome line),
-- so that what is kept stays readable: failures and the round summaries.
local function quiet(t, mark)
  for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
end

local function set_last_use(stamp, sec)
  local s = assert(sp.read(stamp))
  local n
  s, n = s:gsub("\nlast_use [%d%.]+\n", string.format("\nlast_use %d.000000000\n", sec))
  assert(n == 1, "stamp without last_use: " .. stamp)
  assert(sp.write(stamp, s, 384))
end

-- One round's parent: LIVE live roots with epoch stamps, STALE stale ones.
-- Returns the round, or nil when a control run failed.
local function round_setup(t, k)
  local rd = { parent = t.tmp .. "/rt-" .. k, ws = {}, roots = {}, live = {}, stale = {} }
  function rd.profile(i)
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = arr { { root = rd.ws[i] } }
    -- the starters evict nothing themselves (a century covers the epoch
    -- stamps): the gc is the one evictor
    p.runtime = { parent = rd.parent, max_age_s = 100 * 365 * 86400, max_roots = 8192 }
    return p
  end
  for i = 1, LIVE do
    rd.ws[i] = t.tmp .. "/ws-" .. k .. "-" .. i
    assert(sp.mkdir(rd.ws[i]))
    local mark = #t.evidence
    rd.roots[i] = lib.rt_provision(t, rd.profile(i), rd.ws[i])
    if not rd.roots[i] then return nil end
    local _, ok = lib.rt_run(t, { profile = rd.profile(i), cwd = rd.ws[i] }, rd.roots[i],
      { { "write", rd.roots[i] .. "/tmp/f", "x\n" } })
    if not ok or not sp.exists(rd.roots[i] .. "/tmp/f") then return nil end
    quiet(t, mark)
    rd.live[rd.roots[i]:match("[^/]+$")] = i
    set_last_use(rd.roots[i] .. ".stamp", 0)
  end
  for _ = 1, STALE do
    local n = string.format("%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
    if not rd.live[n] and not rd.stale[n] then
      rd.stale[n] = true
      assert(sp.mkdir(rd.parent .. "/" .. n, 448))
    end
  end
  rd.live_names = {}
  for n in pairs(rd.live) do rd.live_names[#rd.live_names + 1] = n end
  table.sort(rd.live_names)
  return rd
end

-- The evictor's position: the first stale root (in name order) still there.
local function position(rd)
  local pos
  for _, n in ipairs(sp.listdir(rd.parent) or {}) do
    if rd.stale[n] and (not pos or n < pos) then pos = n end
  end
  return pos
end

-- One sweep with starters against it.  tot holds the totals over rounds
-- (starts, crossed, broken, missing) and is updated; more(tot, n) says
-- whether to make one more start after n in this round.
local function round_sweep(t, rd, tot, more)
  local bg = t:gc_async({ parent = rd.parent, max_age_s = 100 * 365 * 86400, max_roots = 0, delay_ms = 0 })
  local t0 = sp.now_ms()
  local first = position(rd)
  while position(rd) == first and sp.now_ms() - t0 < 3000 do sp.sleep_ms(1) end
  local n, crossed = 0, 0
  while more(tot, n) do
    local pos = position(rd)
    if not pos then break end -- the sweep is over
    local i
    -- the next live root ahead of the evictor (again, if it has not got
    -- there yet: the root then stays in use until it does)
    for _, name in ipairs(rd.live_names) do
      if name > pos then i = rd.live[name]; break end
    end
    if not i then break end
    n, tot.starts = n + 1, tot.starts + 1
    local mark = #t.evidence
    local s = rd.roots[i] .. "/tmp/s"
    local r, ok, why = lib.rt_run(t, { profile = rd.profile(i), cwd = rd.ws[i] }, rd.roots[i],
      { { "write", s, i .. "\n" }, { "sleep", 60 }, { "read", s, as = "s" } })
    if ok and r.op.s.data ~= i .. "\n" then ok, why = false, "read back " .. tostring(r.op.s.data) end
    local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
    local after = position(rd)
    if not after or after > rd.roots[i]:match("[^/]+$") then
      crossed, tot.crossed = crossed + 1, tot.crossed + 1
    end
    if not ok then
      tot.broken = tot.broken + 1
      t:note("note", "start on root " .. i .. ": " .. tostring(why))
    else
      quiet(t, mark)
      if rt.reprovisioned and rt.reprovision_reason == "root missing" then
        tot.missing = tot.missing + 1
      end
    end
  end
  local t1 = sp.now_ms()
  local g = bg:wait()
  if not (g and g.ran) then return false end
  t:note("note", string.format("round %d: %d starts in %d ms during the sweep, %d crossed by the evictor " ..
    "(it reported %d roots in use); gc %s", rd.k, n, math.floor(t1 - t0), crossed, g.skipped or 0,
    tostring(g.summary)))
  return true
end

return scenario {
  id = "rt.stamp_many_starters",
  clauses = { "RT-4", "RT-5", "RT-6" },
  claim = "runs starting on roots while one evictor sweeps them always keep a working TMPDIR; the evictor never removes a leased root",
  expect = { linux = { "consistent" }, macos = { "consistent" }, windows = { "consistent" } },
  impact = { broken = "fidelity", gc_failed = "fidelity" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  exclusive = "a timed race: the windows are starts the evictor's position crosses, and how many a sweep gives depends on how fast the evictor moves against the starters",
  run = function(t)
    local tot = { starts = 0, crossed = 0, broken = 0, missing = 0 }
    local t0 = sp.now_ms()
    local function in_budget()
      return tot.starts < MAX_STARTS and sp.now_ms() - t0 < BUDGET_MS
    end
    -- a round makes its usual starts, and more while the power is short
    local function more(s, n)
      return s.broken == 0 and in_budget() and (n < ROUND_STARTS or s.crossed < MIN)
    end
    local rounds = 0
    while rounds < MAX_ROUNDS and tot.broken == 0 and in_budget() and (rounds == 0 or tot.crossed < MIN) do
      rounds = rounds + 1
      local rd = round_setup(t, rounds)
      if not rd then return "control_failed" end
      rd.k = rounds
      if not round_sweep(t, rd, tot, more) then return "gc_failed" end
    end
    t:note("note", string.format("%d rounds in %d ms with their setup (budget %d rounds, %d starts, %d s): " ..
      "%d starts, %d crossed by the evictor; %d starters found theirs evicted; broken %d", rounds,
      math.floor(sp.now_ms() - t0), MAX_ROUNDS, MAX_STARTS, BUDGET_MS // 1000, tot.starts, tot.crossed,
      tot.missing, tot.broken))
    t:set_power { attempts = tot.starts, windows = tot.crossed, min = MIN }
    return tot.broken == 0 and "consistent" or "broken"
  end,
}
