-- sandproof.explore.batch - several explore programs in one launch of the
-- runner under test (docs/EXPLORE.md, "Batches").
--
-- Each program gets a universe of its own in one context (oracle.
-- universe: a workspace, a hidden and a visible outside), its own secrets,
-- listeners and control file.  The launch's policy is the union of the programs' policies: every workspace
-- a write root with its own read-only subpaths, every deny entry kept (each
-- names a path of one universe only).  The probe runs each program as a
-- `group` (a forked child): an unshare, an exit or a signal of one program
-- never reaches the next.  Each universe is then judged by the same oracle
-- as a program run alone.
--
-- A launch stops early when the runner stops the sandbox (a protected
-- name created, META-3; a timeout): the program running then was cut
-- short, and is judged as it is (what the host shows is what the runner
-- let it do, as when it runs alone and is stopped); the ones after it
-- never started and are not judged: the caller queues them again.
local lib = require "sandproof.lib"
local oracle = require "sandproof.explore.oracle"
local gen = require "sandproof.explore.gen"

local M = {}

local STOPS = { agents = true, zero = true }

-- Whether prog names an absent protected name as what an op creates: the
-- runner may stop the whole sandbox for it (META-3), so it goes last in
-- its launch.  (One that reaches such a name another way, through a
-- symlink, stops its launch all the same: the ones after it run again.)
function M.may_stop(prog)
  for _, op in ipairs(prog.ops) do
    local at = oracle.CREATES[op[1]]
    if at and STOPS[op[at]] then return true end
  end
  return false
end

-- The lab's listeners a program needs (oracle.listeners: three for one
-- that connects) and how many one lab has (LAB_MAX_LISTENERS).
M.LAB_LISTENERS = 16
function M.listeners(prog)
  for _, op in ipairs(prog.ops) do
    if gen.is_net(op) then return 3 end
  end
  return 0
end

function M.has_daemon(prog)
  for _, op in ipairs(prog.ops) do
    if op[1] == "spawn_daemon" then return true end
  end
  return false
end

-- The launch a program needs: programs of one batch share it.  A held one
-- runs alone (its hold is the launch's).  One that starts a daemon shares
-- a launch: a launch that leaves a process alive is not judged, its
-- programs run alone, where residue is judged for the program that left it
-- (M.run); with daemons_alone (the runner left one alive before: its
-- launches would all be run twice) it runs alone from the start.
function M.launch_key(prog, daemons_alone)
  if prog.hold or (daemons_alone and M.has_daemon(prog)) then return "alone:" .. prog.seed end
  for _, e in ipairs(prog.policy) do
    if e.kind == "network" then return "network=" .. e.name end
  end
  return "network=deny"
end

-- The launch's profile: each program's, merged.
local function merged_profile(us, sts)
  local p
  for i, u in ipairs(us) do
    local q = oracle.profile(u, sts[i])
    if not p then
      p = q
    else
      p.filesystem.write_roots[#p.filesystem.write_roots + 1] = q.filesystem.write_roots[1]
      for _, k in ipairs { "deny_read", "deny_write" } do
        for _, x in ipairs(q.filesystem[k] or {}) do
          p.filesystem[k] = p.filesystem[k] or lib.array {}
          p.filesystem[k][#p.filesystem[k] + 1] = x
        end
      end
    end
  end
  return p
end

-- Program i's results, renumbered from its group's op (at index base):
-- its own ops from 0, as a run alone gives them.
local function results_of(r, base, n)
  local out, done, started = {}, false, false
  for _, res in ipairs(r.probe) do
    local i = math.type(res.i) == "integer" and res.i or -1
    if i == base then done = true
    elseif i > base and i <= base + n then
      local c = {}
      for k, x in pairs(res) do c[k] = x end
      c.i = i - base - 1
      out[#out + 1] = c
      started = started or c.i == 0
    end
  end
  return out, done, started
end

-- Runs progs (2 or more, one launch_key) in context t, one launch.
-- Returns, per program in order, { kind = "judged", outcome = ..., cut =
-- true when its group never ended } or { kind = "not_started" }.
function M.run(t, progs)
  local us, sts, probe = {}, {}, {}
  for i, prog in ipairs(progs) do
    us[i] = oracle.universe(t, i, prog.seed)
    sts[i] = oracle.prepare(us[i], prog)
    sts[i].base = #probe
    probe[#probe + 1] = { "group", #sts[i].probe }
    for _, op in ipairs(sts[i].probe) do
      local c = {}
      for k, x in pairs(op) do if k ~= "as" then c[k] = x end end
      probe[#probe + 1] = c
    end
  end
  for _, st in ipairs(sts) do st.launch = probe end -- syscall denials name no universe
  local p = merged_profile(us, sts)
  for _, e in ipairs(progs[1].policy) do
    if e.kind == "network" then p.network = { mode = e.name } end
  end
  local r = t:sandbox { profile = p, cwd = us[1].ws, probe = probe,
                        timeout_ms = oracle.TIMEOUT_MS * #progs }
  t:ran(r)
  -- processes the launch left alive (killed by the harness, or found by
  -- their command line, which is the probe's and holds every program's
  -- pidfile: killed by the oracle) belong to no one program: the caller
  -- runs each alone, where residue is judged
  local left = tonumber(r.harness_killed) or 0
  local daemons = false
  for _, prog in ipairs(progs) do daemons = daemons or M.has_daemon(prog) end
  if left == 0 and daemons then left = #oracle.census_daemons(t, t.tmp .. "/u") end
  if left > 0 then
    error({ sp_error = string.format("the launch left %d processes alive: its programs run alone", left),
            residue = true }, 0)
  end
  for _, st in ipairs(sts) do st.censused = daemons end
  local out = {}
  for i, u in ipairs(us) do
    local own, done, started = results_of(r, sts[i].base, #sts[i].probe)
    if started then
      out[i] = { kind = "judged", cut = not done,
                 outcome = oracle.judge(u, sts[i], { probe = own, outcome = r.outcome }) }
    else
      out[i] = { kind = "not_started" }
    end
  end
  return out
end

return M
