-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) the workspace's runtime root is exchanged
-- with a symlink to a directory outside the policy, then the call
-- continues.  The runner may refuse, re-provision or run; nothing may land
-- outside (the command writes into the root's tmp/, cache/ and data/ and
-- through the root itself; lib.swap_sweep).
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.runtime_root_held",
  clauses = { "SWAP-1", "SWAP-2", "RT-4", "RT-5" },
  claim = "a runtime root exchanged with a symlink to outside at any path-resolving syscall of the runner never redirects a write outside",
  expect = { linux = { "confined" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall: swap.junction_runtime_root_held is the path-held counterpart" } },
  impact = { escaped = "escape" },
  control = "rt.stamp_recreated",
  run = function(t)
    local profile = t.profiles.workspace_write()
    profile.runtime = { parent = t.tmp .. "/rt", max_age_s = 3600, max_roots = 8 }
    -- positive control: a first run provisions the root and names it
    local root = lib.rt_provision(t, profile)
    if not root then return "control_failed" end
    local link = t.tmp .. "/rt_link"
    assert(sp.symlink(t.outside, link))
    local before = snapshot(t.outside)
    local function spec()
      return { profile = profile, probe = {
        { "write", root .. "/tmp/f", "x" }, { "write", root .. "/cache/f", "x" },
        { "write", root .. "/data/f", "x" }, { "append", root .. "/victim", "pwned\n" },
      } }
    end
    -- Back to a real root at root and the link at link, whatever the swap
    -- and the runner left there (the runner may have replaced the link it
    -- found at the root's name by a fresh root).
    local function restore()
      local sr, sl = sp.lstat(root), sp.lstat(link)
      if sr and sr.type == "link" and sl and sl.type == "dir" then
        assert(sp.swap(root, link))
      elseif sl and sl.type ~= "link" then
        sp.rmtree(link)
      end
      if not sp.lstat(link) then assert(sp.symlink(t.outside, link)) end
    end
    local reprov = 0
    local verdict = lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, a = root, b = link,
      control = function()                                                -- positive control
        if sp.read(root .. "/tmp/f") == "x" and sp.read(root .. "/cache/f") == "x" then return true end
        t:note("note", "control: writes into the runtime root did not land")
        return false
      end,
      undo = function() end,                      -- reset restores, whatever the runner left
      changed = function(r)
        if r.outcome.runtime and r.outcome.runtime.reprovisioned then reprov = reprov + 1 end
        local now = snapshot(t.outside)
        return now ~= before and ("outside: " .. diff(before, now)) or nil
      end,
      reset = function()
        restore()
        if snapshot(t.outside) == before then return end
        for _, name in ipairs(sp.listdir(t.outside) or {}) do
          if name ~= "victim" then sp.rmtree(t.outside .. "/" .. name) end
        end
        sp.write(t.outside .. "/victim", "untouched\n")
      end })
    t:note("note", string.format("re-provisioned %d times", reprov))
    return verdict
  end,
}
