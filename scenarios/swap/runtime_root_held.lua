-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) the workspace's runtime root is exchanged
-- with a symlink to a directory outside the policy, then the call
-- continues.  The runner may refuse, re-provision or run; nothing may land
-- outside (the command writes into the root's tmp/, cache/ and data/ and
-- through the root itself).
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.runtime_root_held",
  clauses = { "SWAP-1", "SWAP-2", "RT-4", "RT-5" },
  claim = "a runtime root exchanged with a symlink to outside at any path-resolving syscall of the runner never redirects a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
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
    local n, r1 = t:hold_count { syscalls = SYSCALLS, sandbox = spec() }
    t:ran(r1)
    if sp.read(root .. "/tmp/f") ~= "x" or sp.read(root .. "/cache/f") ~= "x" then
      t:note("note", "control: writes into the runtime root did not land")
      return "control_failed"
    end
    if n == 0 then t:skip("the runner made none of the held syscalls") end
    local mark, hit, escaped, kinds, reprov = #t.evidence, 0, {}, {}, 0
    for k = 1, n do
      local at
      local r = t:hold { syscalls = SYSCALLS, at = k, sandbox = spec(), action = function(_, name)
        if sp.swap(root, link) then at = name end
      end }
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
      if at then hit = hit + 1 end
      restore()
      local o = r.outcome
      local kind = tostring(o.kind)
      kinds[kind] = (kinds[kind] or 0) + 1
      if o.runtime and o.runtime.reprovisioned then reprov = reprov + 1 end
      local now = snapshot(t.outside)
      if now ~= before then
        escaped[#escaped + 1] = k
        if #escaped <= 4 then
          t:note("note", string.format("k=%d (%s), outcome %s: outside changed: %s", k, tostring(at),
            kind, diff(before, now)))
        end
        mark = #t.evidence
        for _, name in ipairs(sp.listdir(t.outside) or {}) do
          if name ~= "victim" then sp.rmtree(t.outside .. "/" .. name) end
        end
        sp.write(t.outside .. "/victim", "untouched\n")
      end
    end
    t:set_power { attempts = n, windows = hit, min = n }
    t:note("note", string.format("windows %d, hit %d, outcomes %s, re-provisioned %d, escaped %d%s", n, hit,
      lib.tally(kinds), reprov, #escaped, #escaped > 0 and (" at k=" .. table.concat(escaped, ",")) or ""))
    return #escaped == 0 and "confined" or "escaped"
  end,
}
