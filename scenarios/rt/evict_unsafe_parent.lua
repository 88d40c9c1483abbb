-- A runtime parent others could write to is refused: made world-writable
-- (0777), and then writable by its group only (0770), gc must fail and
-- evict nothing, and a run naming it must be a
-- sandbox_setup_failure that does not run its command.  The positive
-- control: the same parent back at 0700 serves the same run.  Shell-free:
-- a first run provisions the root and reports its TMPDIR; the command is
-- probe ops writing there and the marker `ran`.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.evict_unsafe_parent",
  clauses = { "RT-2", "RT-6", "SETUP-1" },
  claim = "a group/world-writable runtime parent is refused by gc and by a run, which then does not run its command",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ["gc_worked_in_unsafe_parent:*"] = "hardening", ["ran:*"] = "hardening", ["not_refused:*"] = "reporting" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local ran = t.ws .. "/ran"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 0, max_roots = 0 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local ops = { { "write", root .. "/tmp/f", "x\n" }, { "write", ran, "x\n" } }
    local spec = function() return { profile = p, probe = ops } end
    -- positive control: a safe parent works
    local _, ok0, why0 = lib.rt_run(t, { profile = p }, root, ops)
    if not ok0 or not sp.exists(ran) then
      t:note("note", "positive control: " .. tostring(why0 or "ran not written"))
      return "control_failed"
    end
    assert(sp.unlink(ran))
    -- world-writable (0777), then writable by the group only (0770)
    for _, mode in ipairs { 511, 504 } do
      assert(sp.chmod(parent, mode))
      local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
      local r = t:sandbox(spec())
      local o = r.outcome
      t:note("note", string.format("mode %o: gc: ran %s (%s); run: kind %s step %s errno %s", mode, tostring(g.ran),
        tostring(g.summary), tostring(o.kind), tostring(o.setup_error and o.setup_error.step),
        tostring(o.setup_error and o.setup_error.errno)))
      assert(sp.chmod(parent, 448))
      if sp.exists(ran) then return string.format("ran:%o", mode) end
      if g.ran or not sp.exists(root .. "/tmp/f") then return string.format("gc_worked_in_unsafe_parent:%o", mode) end
      if o.kind ~= "sandbox_setup_failure" then return string.format("not_refused:%o:%s", mode, tostring(o.kind)) end
    end
    -- and back at 0700 the parent serves again
    local _, ok2 = lib.rt_run(t, { profile = p }, root, ops)
    if not ok2 or not sp.exists(ran) then return "control_failed" end
    return "refused"
  end,
}
