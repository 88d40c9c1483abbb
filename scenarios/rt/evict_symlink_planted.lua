-- Entries planted in the runtime parent are never followed nor removed: a
-- symlink with a root's name and one with a tombstone's name, both pointing
-- at a victim directory outside.  Eviction by a run (its policy max_age_s 0,
-- max_roots 0) and by gc must remove the real roots beside them (the
-- positive control) and leave the victim's files and both links intact.
local function arr(t) return setmetatable(t, { __jsonarray = true }) end

local function profile(t, parent, ws, age, roots)
  if not sp.exists(ws) then assert(sp.mkdir(ws)) end
  local p = t.profiles.workspace_write()
  p.filesystem.write_roots = arr { { root = ws } }
  p.runtime = { parent = parent, max_age_s = age, max_roots = roots }
  return p
end

-- A run with a runtime root for ws (its TMPDIR reported by the probe, no
-- shell): the root and the run.
local function use_root(t, parent, ws, age, roots)
  local r = t:ran(t:sandbox { profile = profile(t, parent, ws, age or 864000, roots or 64), cwd = ws,
                              probe = { { "env", "TMPDIR", as = "tmpdir" } } })
  local root = type(r.outcome.runtime) == "table" and r.outcome.runtime.root or nil
  if r.outcome.kind ~= "success" or type(root) ~= "string" or r.op.tmpdir.value ~= root .. "/tmp" then
    t:error("could not provision a runtime root: " .. tostring(r.outcome.kind))
  end
  return root, r
end

return scenario {
  id = "rt.evict_symlink_planted",
  clauses = { "RT-6" },
  claim = "a symlink planted in the runtime parent under a root's or a tombstone's name is neither followed nor removed by eviction",
  expect = { linux = { "untouched" }, macos = { "untouched" }, windows = { "untouched" } },
  impact = { followed = "escape", link_removed = "escape", gc_failed = "fidelity" },
  control = "rt.evict_age",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local vdir = t.outside .. "/vdir"
    assert(sp.mkdir(vdir))
    assert(sp.mkdir(vdir .. "/sub"))
    assert(sp.write(vdir .. "/keep", "victim\n"))
    assert(sp.write(vdir .. "/sub/keep", "victim\n"))
    local first = use_root(t, parent, t.tmp .. "/ws-1")
    local links = { parent .. "/0123456789abcdef", parent .. "/fedcba9876543210.tomb.1.1.1" }
    for _, l in ipairs(links) do assert(sp.symlink(vdir, l)) end
    -- eviction by a run: everything but its own root goes
    local cur, r = use_root(t, parent, t.tmp .. "/ws-2", 0, 0)
    t:note("note", "run: evicted " .. sp.json_encode(r.outcome.runtime.evicted or {}) ..
      " skipped " .. sp.json_encode(r.outcome.runtime.skipped or {})) -- use_root made sure it is a table
    -- eviction by gc: the run's root goes too
    local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
    t:note("note", "gc: " .. tostring(g.summary))
    if not g.ran then return "gc_failed" end
    if sp.exists(first) or sp.exists(cur) then return "control_failed" end
    if sp.read(vdir .. "/keep") ~= "victim\n" or sp.read(vdir .. "/sub/keep") ~= "victim\n" then
      return "followed"
    end
    for _, l in ipairs(links) do
      local st = sp.lstat(l)
      if not (st and st.type == "link") then return "link_removed" end
    end
    return "untouched"
  end,
}
