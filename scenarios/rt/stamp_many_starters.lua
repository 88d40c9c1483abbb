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
-- reached it), so that the evictor reaches that root while a run holds it.  Each command writes a file into its TMPDIR, sleeps,
-- and reads it back: no command may find it missing or changed.  A window
-- is a run the evictor's position crossed its root during (seen on the
-- host, whatever the runner reports); a starter that finds its root
-- already evicted provisions afresh ("root missing").
local function arr(t) return setmetatable(t, { __jsonarray = true }) end

local LIVE, STALE = 12, 5000

local function set_last_use(stamp, sec)
  local s = assert(sp.read(stamp))
  local n
  s, n = s:gsub("\nlast_use [%d%.]+\n", string.format("\nlast_use %d.000000000\n", sec))
  assert(n == 1, "stamp without last_use: " .. stamp)
  assert(sp.write(stamp, s, 384))
end

return scenario {
  id = "rt.stamp_many_starters",
  clauses = { "RT-4", "RT-5", "RT-6" },
  claim = "runs starting on roots while one evictor sweeps them always keep a working TMPDIR; the evictor never removes a leased root",
  expect = { linux = { "consistent" }, macos = { "consistent" }, windows = { "consistent" } },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local ws, roots, live, stale = {}, {}, {}, {}
    local function profile(i)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = arr { { root = ws[i] } }
      -- the starters evict nothing themselves (a century covers the epoch
      -- stamps): the gc is the one evictor
      p.runtime = { parent = parent, max_age_s = 100 * 365 * 86400, max_roots = 8192 }
      return p
    end
    for i = 1, LIVE do
      ws[i] = t.tmp .. "/ws-" .. i
      assert(sp.mkdir(ws[i]))
      local r = t:sandbox { profile = profile(i), cwd = ws[i], command = { "sh", "-c", 'echo x > "$TMPDIR/f"' } }
      roots[i] = type(r.outcome.runtime) == "table" and r.outcome.runtime.root or nil
      if r.outcome.kind ~= "success" or not sp.exists(tostring(roots[i]) .. "/tmp/f") then
        return "control_failed"
      end
      live[roots[i]:match("[^/]+$")] = i
      set_last_use(roots[i] .. ".stamp", 0)
    end
    for _ = 1, STALE do
      local n = string.format("%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
      if not live[n] and not stale[n] then
        stale[n] = true
        assert(sp.mkdir(parent .. "/" .. n, 448))
      end
    end
    -- the evictor's position: the first stale root (in name order) still there
    local function position()
      local pos
      for _, n in ipairs(sp.listdir(parent) or {}) do
        if stale[n] and (not pos or n < pos) then pos = n end
      end
      return pos
    end
    local live_names = {}
    for n in pairs(live) do live_names[#live_names + 1] = n end
    table.sort(live_names)
    local bg = t.runner.gc_async(t, { parent = parent, max_age_s = 100 * 365 * 86400, max_roots = 0, delay_ms = 0 })
    if not bg then t:unsupported("the runner has no runtime-root eviction") end
    local t0 = sp.now_ms()
    local first = position()
    while position() == first and sp.now_ms() - t0 < 3000 do sp.sleep_ms(1) end
    local broken, missing, starts, crossed = 0, 0, 0, 0
    while true do
      local pos = position()
      if not pos then break end -- the sweep is over
      local i
      -- the next live root ahead of the evictor (again, if it has not got
      -- there yet: the root then stays in use until it does)
      for _, n in ipairs(live_names) do
        if n > pos then i = live[n]; break end
      end
      if not i or starts >= 24 then break end
      starts = starts + 1
      local r = t:sandbox { profile = profile(i), cwd = ws[i], command = { "sh", "-c",
        'echo ' .. i .. ' > "$TMPDIR/s" && sleep 0.06 && test "$(cat "$TMPDIR/s")" = ' .. i } }
      local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
      local after = position()
      if not after or after > roots[i]:match("[^/]+$") then crossed = crossed + 1 end
      if r.outcome.kind ~= "success" then
        broken = broken + 1
        t:note("note", "start on root " .. i .. ": " .. tostring(r.outcome.kind))
      elseif rt.reprovisioned and rt.reprovision_reason == "root missing" then
        missing = missing + 1
      end
    end
    local t1 = sp.now_ms()
    local g = bg:wait()
    if not (g and g.ran) then return "gc_failed" end
    t:note("note", string.format("%d starts in %d ms during the sweep, %d crossed by the evictor (it reported " ..
      "%d roots in use); %d starters found theirs evicted; gc %s; broken %d", starts, math.floor(t1 - t0),
      crossed, g.skipped or 0, missing, tostring(g.summary), broken))
    t:set_power { attempts = starts, windows = crossed, min = 3 }
    return broken == 0 and "consistent" or "broken"
  end,
}
