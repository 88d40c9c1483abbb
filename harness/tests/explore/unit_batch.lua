-- A launch of eight programs, one of them violating and seven clean, is
-- judged program by program: exactly the violating one is named, with its
-- class and outcome, wherever it sits in the launch (first, middle, last).
-- Run as a scenario by test_explore.sh against none (escapes and
-- hardening: none lets everything through), against ref_mute (ref with
-- its denials removed from the outcome: reporting) and against ref (every
-- program of those launches confined).  The launches run in
-- a worker's home (universes restored in place between them), as explore
-- runs them.  The outcome is "ok" or the first check that failed.
local driver = require "sandproof.explore.driver"
local universe = require "sandproof.explore.universe"
local gen = require "sandproof.explore.gen"

-- Programs no runner may be blamed for: workspace writes, reads, renames,
-- a permitted socket.
local CLEAN = {
  { { "write", "ws/b", "x" } },
  { { "stat", "ws/d/f" }, { "read", "ws/a" } },
  { { "mkdir", "ws/d/g" }, { "write", "ws/d/g/x", "x" } },
  { { "rename", "ws/a", "ws/b" } },
  { { "socket", "inet", "stream" } },
  { { "append", "ws/d/f", "x" } },
  { { "unlink", "ws/a" } },
}

-- The violating programs per runner: ops and the outcome expected (a
-- prefix).
local VIOLATORS = {
  none = {
    { { { "write", "out/victim", "x" } }, "escape: changed out" },
    { { { "read", "out/secret" } }, "escape: read the content of out/secret" },
    { { { "connect", "tcp", "127.0.0.1", "$tcp" } }, "escape: a lab listener was reached" },
    { { { "io_uring" } }, "hardening: set up an io_uring instance" },
    { { { "socket", "vsock", "stream" } }, "hardening: opened a vsock socket" },
  },
  -- (not a protected name's creation: ref stops the sandbox for it, and
  -- whether the probe printed the op's result before the stop is timing)
  ref_mute = {
    { { { "io_uring" } }, "reporting: io_uring refused with EPERM without a syscall denial of io_uring_setup" },
    { { { "unshare_user" } }, "reporting: unshare_user refused with EPERM without a syscall denial of unshare" },
    { { { "tiocsti_pty" } }, "reporting: tiocsti_pty refused with EPERM without a syscall denial of ioctl" },
  },
}

-- Against ref every one of them is confined.
VIOLATORS.ref = {}
for _, l in ipairs { VIOLATORS.none, VIOLATORS.ref_mute } do
  for _, v in ipairs(l) do VIOLATORS.ref[#VIOLATORS.ref + 1] = { v[1], "confined" } end
end

local function launch(t, home, v, at, n)
  local progs = {}
  for i = 1, 8 do
    local ops = i == at and v[1] or CLEAN[(i + n) % #CLEAN + 1]
    progs[i] = { seed = 1000 * n + i, policy = {}, ops = ops }
  end
  local res, why = driver.run_batch(t.runner_name, t.paths, progs, home)
  if not res then return "launch " .. n .. " failed: " .. tostring(why) end
  for i, x in ipairs(res) do
    local what = string.format("launch %d (the violator %s at %d): program %d", n,
                               gen.program_text(progs[at]), at, i)
    if i == at and v[2] ~= "confined" then
      if x.kind ~= "violation" or tostring(x.outcome):sub(1, #v[2]) ~= v[2] then
        return what .. " is " .. tostring(x.kind) .. ": " .. tostring(x.outcome) .. ", not " .. v[2]
      end
    elseif x.kind ~= "confined" then
      return what .. " is " .. tostring(x.kind) .. ": " .. tostring(x.outcome)
    end
  end
end

local function checks(t)
  local vs = VIOLATORS[t.runner_name]
  if not vs then return "no programs for runner " .. t.runner_name end
  local home = assert(universe.home_new())
  local ok, why = pcall(function()
    local n = 0
    for _, v in ipairs(vs) do
      for _, at in ipairs { 1, 4, 8 } do
        n = n + 1
        local bad = launch(t, home, v, at, n)
        if bad then return bad end
      end
    end
    -- the home's lab is kept between launches: a listener is never a
    -- second program's, so five programs that connect to a port nothing
    -- listens on are confined, whatever reached the earlier programs'
    local quiet = { { { "connect", "tcp", "127.0.0.1", "1" } }, "confined" }
    for at = 1, 5 do
      local bad = launch(t, home, quiet, at, n + at)
      if bad then return bad end
    end
    return "ok"
  end)
  universe.home_remove(home)
  return ok and why or ("error: " .. tostring(why))
end

return scenario {
  id = "fs.explore_batch",
  clauses = { "FS-1" },
  claim = "a launch of several programs names exactly the one that violated",
  expect = { linux = { "ok" }, macos = { unsupported = "explore is linux only so far" },
             windows = { unsupported = "explore is linux only so far" } },
  impact = { ["*"] = "fidelity" },
  run = function(t) return checks(t) end,
}
