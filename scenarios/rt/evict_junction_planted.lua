-- Links planted among the runtime roots while eviction runs: a gc is
-- started in the background (max_age_s 0, max_roots 0: every idle root
-- goes), and from then on - in its delay and while it runs - links to a
-- victim directory outside are planted under a root's and a tombstone's
-- name in the runtime parent and inside each root (its tmp\ and cache\):
-- an NTFS junction on Windows, a symlink elsewhere.  Eviction must unlink
-- a link as a link or leave it alone, never descend it: the victim's files
-- must all be there afterwards.  Positive control: the real roots are
-- gone.  Power: the links that were inside a root eviction then removed
-- (the removal met them), at least one.  rt.evict_symlink_planted plants
-- before eviction, at the parent only.
local lib = require "sandproof.lib"

local N_ROOTS = 3

return scenario {
  id = "rt.evict_junction_planted",
  clauses = { "RT-6" },
  claim = "a junction (a symlink off Windows) planted in the runtime parent or inside a root while eviction runs is unlinked as a link or left alone, never descended",
  expect = { linux = { "kept" }, macos = { "kept" }, windows = { "kept" } },
  impact = { followed = "escape", gc_failed = "fidelity" },
  control = "rt.evict_age",
  needs = { "gc" },
  exclusive = "a timed race: links are planted for 1.5 s of wall time while eviction runs, and the windows (links eviction met) depend on their relative speed",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local vdir = t.outside .. "/vdir"
    assert(sp.mkdir(vdir))
    assert(sp.mkdir(vdir .. "/sub"))
    assert(sp.write(vdir .. "/keep", "victim\n"))
    assert(sp.write(vdir .. "/sub/keep", "victim\n"))
    local win = sp.os == "windows" or sp.os == "wine"
    if win then t:need_primitive("swap") end      -- junctions (Wine has none)
    local function plant(link)
      if win then return pcall(t.junction, t, link, vdir) end
      return sp.symlink(vdir, link) and true or false
    end
    local roots = {}
    for i = 1, N_ROOTS do                         -- one root per workspace, made by probe ops only
      local ws = t.tmp .. "/ws-" .. i
      assert(sp.mkdir(ws))
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = lib.array { { root = ws } }
      p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
      local r = t:ran(t:sandbox { profile = p, cwd = ws, probe = { { "env", "TMPDIR", as = "tmpdir" } } })
      roots[i] = type(r.outcome.runtime) == "table" and r.outcome.runtime.root or nil
      if not (roots[i] and r.op.tmpdir and r.op.tmpdir.value == roots[i] .. "/tmp") then
        t:note("note", "positive control failed: no runtime root reported, or TMPDIR not in it")
        return "control_failed"
      end
    end
    local bg = t:gc_async({ parent = parent, max_age_s = 0, max_roots = 0, delay_ms = 200 })
    local inside, planted = {}, 0
    local deadline = sp.now_ms() + 1500
    for round = 1, 1000 do
      for _, l in ipairs { string.format("%s/%016x", parent, round), string.format("%s/%016x.tomb.1.1.%d", parent, round, round) } do
        if plant(l) then planted = planted + 1 end
      end
      for i, root in ipairs(roots) do
        for _, d in ipairs { "tmp", "cache" } do
          local l = string.format("%s/%s/lnk-%d-%d", root, d, i, round)
          if plant(l) then planted = planted + 1 inside[#inside + 1] = l end
        end
      end
      if sp.now_ms() > deadline then break end
      sp.sleep_ms(25)
    end
    local g = bg:wait()
    t:note("note", string.format("planted %d links (%d inside roots); gc: %s", planted, #inside,
      tostring(g and g.summary)))
    if not (g and g.ran) then return "gc_failed" end
    if sp.read(vdir .. "/keep") ~= "victim\n" or sp.read(vdir .. "/sub/keep") ~= "victim\n" then
      return "followed"
    end
    for _, root in ipairs(roots) do
      if sp.exists(root) then
        t:note("note", "positive control failed: root " .. root .. " was not evicted")
        return "control_failed"
      end
    end
    local met = 0
    for _, l in ipairs(inside) do if not sp.lstat(l) then met = met + 1 end end
    t:set_power { attempts = #inside, windows = met, min = 1 }
    return "kept"
  end,
}
