-- (a) Before the run: the runtime root of the workspace (profile.runtime,
-- parent under t.tmp), or its tmp/ or cache/ directory, is replaced by a
-- symlink to a directory outside the policy.  A runner that trusts the name
-- (or a stale stamp) would mount the outside writable as the command's
-- TMPDIR or cache.  The contract wants the run refused or the root
-- re-provisioned without following the link (RT-5, SWAP-1).  The oracle
-- is the host: t.outside unchanged.
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.runtime_root_symlink_before",
  clauses = { "SWAP-1", "RT-5", "RT-3" },
  claim = "a runtime root, or its tmp/ or cache/, replaced by a symlink to outside before the run is refused or re-provisioned: no write lands outside",
  expect = { linux = { "refused", "confined" }, macos = { "refused", "confined" },
             windows = { "refused", "confined" } },
  impact = { escaped = "escape" },
  control = "rt.stamp_recreated",
  run = function(t)
    local profile = t.profiles.workspace_write()
    profile.runtime = { parent = t.tmp .. "/rt", max_age_s = 3600, max_roots = 8 }
    -- positive control: a first run provisions the root and names it (its
    -- TMPDIR takes writes below)
    local root = lib.rt_provision(t, profile)
    if not root then return "control_failed" end
    local probe = {
      { "write", root .. "/tmp/f", "x" }, { "write", root .. "/cache/f", "x" },
      { "write", root .. "/data/f", "x" }, { "append", root .. "/tmp/victim", "pwned\n" },
      { "append", root .. "/cache/victim", "pwned\n" }, { "append", root .. "/victim", "pwned\n" },
    }
    t:ran(t:sandbox { profile = profile, probe = probe })
    if sp.read(root .. "/tmp/f") ~= "x" or sp.read(root .. "/cache/f") ~= "x" then
      t:note("note", "control: writes into the runtime root did not land")
      return "control_failed"
    end
    local before = snapshot(t.outside)
    local saved = t.tmp .. "/saved"
    local ran = 0
    for _, victim in ipairs { root, root .. "/tmp", root .. "/cache" } do
      assert(sp.rename(victim, saved))
      assert(sp.symlink(t.outside, victim))
      local r = t:sandbox { profile = profile, probe = probe }
      local o = r.outcome
      -- put the original back, whatever the runner left at the name
      local st = sp.lstat(victim)
      if st and st.type == "link" then sp.unlink(victim) elseif st then sp.rmtree(victim) end
      assert(sp.rename(saved, victim))
      local name = victim:sub(#t.tmp + 2)
      if o.kind == "sandbox_setup_failure" then
        t:note("note", string.format("%s a link: refused, step %s errno %s", name,
          tostring(o.setup_error and o.setup_error.step), tostring(o.setup_error and o.setup_error.errno)))
      else
        t:ran(r)
        ran = ran + 1
        local e = {}
        for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
        local rt = o.runtime or {}
        t:note("note", string.format("%s a link: ran (%s), reprovisioned %s (%s): %s", name,
          tostring(o.kind), tostring(rt.reprovisioned), tostring(rt.reprovision_reason), table.concat(e, ", ")))
      end
      local now = snapshot(t.outside)
      if now ~= before then
        t:note("note", "outside changed through " .. name .. ": " .. diff(before, now))
        return "escaped"
      end
    end
    return ran == 0 and "refused" or "confined"
  end,
}
