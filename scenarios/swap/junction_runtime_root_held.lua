-- Windows hold sweep, bait-and-switch on a runtime root: a first run
-- provisions the workspace's root; its directory is moved aside and the
-- root's name made a junction to it.  The runner is held by an oplock at
-- each open of the root's name that breaks it (every k in turn), and
-- while that open waits the junction is retargeted to a directory outside
-- the policy.  The runner may refuse the junction, re-provision a fresh
-- root in its place, or use it; the command's writes into the root (tmp\,
-- cache\, data\ and the root itself) must never land outside.  Power: the
-- windows are the opens observed (breaks of the oplock: a lower bound of
-- the opens made, docs/SCENARIOS.md).  The Linux form (a symlink exchanged
-- with the root at each path-resolving syscall) is swap.runtime_root_held.
local lib = require "sandproof.lib"

return scenario {
  id = "swap.junction_runtime_root_held",
  clauses = { "SWAP-1", "SWAP-2", "RT-4", "RT-5" },
  claim = "a runtime root that is a junction retargeted outside at any open of it by the runner never redirects a write outside",
  expect = { linux = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on Linux (swap.runtime_root_held is its Linux form)" },
             macos = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on macOS" },
             windows = { "confined", "refused" } },
  impact = { escaped = "escape" },
  control = "rt.stamp_recreated",
  run = function(t)
    local profile = t.profiles.workspace_write()
    profile.runtime = { parent = t.tmp .. "/rt", max_age_s = 3600, max_roots = 8 }
    local root = lib.rt_provision(t, profile)                            -- positive control
    if not root then return "control_failed" end
    local real = t.tmp .. "/rt_real"
    assert(sp.rename(root, real))
    t:junction(root, real)
    local before = lib.snapshot(t.outside)
    local function spec()
      return { profile = profile, probe = {
        { "write", root .. "/tmp/f", "x" }, { "write", root .. "/cache/f", "x" },
        { "write", root .. "/data/f", "x" }, { "append", root .. "/victim", "pwned\n" },
      } }
    end
    local function is_junction() local st = sp.lstat(root) return st and st.type == "link" end
    -- Back to the root's name a junction to real, whatever the runner left
    -- there (a fresh root it provisioned in place of the junction is removed).
    local function restore()
      local st = sp.lstat(root)
      if st and st.type ~= "link" then sp.rmtree(root) end
      t:junction(root, real)
      for _, d in ipairs { "tmp", "cache", "data" } do sp.unlink(real .. "/" .. d .. "/f") end
    end
    -- a runner that refuses a runtime root that is a junction: "refused"
    local r0 = t:sandbox(spec())
    local kind = r0.outcome and r0.outcome.kind
    if kind == "sandbox_setup_failure" or kind == "request_refused" then
      t:note("note", "a runtime root that is a junction: refused (" .. tostring(kind) .. ")")
      return "refused"
    end
    restore()
    local reprov = 0
    local verdict = lib.swap_sweep(t, { path = root, spec = spec,
      control = function(r)                                               -- positive control
        local where = is_junction() and real or root
        if sp.read(where .. "/tmp/f") == "x" and sp.read(where .. "/cache/f") == "x" then return true end
        t:note("note", "control: writes into the runtime root did not land (" .. tostring(r.outcome.kind) .. ")")
        return false
      end,
      -- the bait and switch: only while the root's name is still the junction
      act = function()
        if not is_junction() then return false end
        t:junction(root, t.outside)
        return true
      end,
      undo = function() end,                      -- reset restores, whatever the runner left
      changed = function(r)
        if r.outcome.runtime and r.outcome.runtime.reprovisioned then reprov = reprov + 1 end
        local now = lib.snapshot(t.outside)
        return now ~= before and ("outside: " .. lib.snapshot_diff(before, now)) or nil
      end,
      reset = function()
        restore()
        if lib.snapshot(t.outside) == before then return end
        for _, name in ipairs(sp.listdir(t.outside) or {}) do
          if name ~= "victim" then sp.rmtree(t.outside .. "/" .. name) end
        end
        sp.write(t.outside .. "/victim", "untouched\n")
      end })
    t:note("note", string.format("re-provisioned %d times", reprov))
    return verdict
  end,
}
