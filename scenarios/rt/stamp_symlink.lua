-- A stamp replaced by a symlink is neither trusted nor written through.
-- The symlink points at a copy of the genuine stamp kept outside, so a
-- runner that followed it would find a matching stamp and take the fast
-- path, and would then overwrite the copy when it records the use.  The
-- run must re-provision (the stamp is unreadable as a link), leave the copy
-- byte for byte, and put a regular stamp file back in place.  Shell-free:
-- the first run reports its TMPDIR, the second writes there by a probe op.
local lib = require "sandproof.lib"

return scenario {
  id = "rt.stamp_symlink",
  clauses = { "RT-5", "RT-6" },
  claim = "a stamp made a symlink is not followed: not read (the root is re-provisioned) and not written through",
  expect = { linux = { "not_followed" }, macos = { "not_followed" }, windows = { "not_followed" } },
  impact = { followed = "hardening", written_through = "escape", gc_failed = "fidelity", ["run_failed:*"] = "fidelity", stamp_not_restored = "fidelity" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local copy = t.outside .. "/stamp-copy"
    local genuine = assert(sp.read(root .. ".stamp"))
    assert(sp.write(copy, genuine, 384))
    assert(sp.unlink(root .. ".stamp"))
    assert(sp.symlink(copy, root .. ".stamp"))
    sp.sleep_ms(5) -- a rewrite would carry a different last_use
    local r, ok, why = lib.rt_run(t, { profile = p }, root, { { "write", root .. "/tmp/f", "x\n" } })
    local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
    t:note("note", string.format("kind %s reprovisioned %s (%s)", tostring(r.outcome.kind),
      tostring(rt.reprovisioned), tostring(rt.reprovision_reason)))
    if sp.read(copy) ~= genuine then return "written_through" end
    if not ok then return "run_failed:" .. tostring(why) end
    if rt.reprovisioned ~= true then return "followed" end
    local st = sp.lstat(root .. ".stamp") or {}
    if st.type ~= "file" then return "stamp_not_restored" end
    -- gc treats the outside copy as nothing of its own either
    local g = t:gc({ parent = parent, max_age_s = 0, max_roots = 0 })
    if not (g and g.ran) then return "gc_failed" end
    if sp.read(copy) ~= genuine then return "written_through" end
    return "not_followed"
  end,
}
