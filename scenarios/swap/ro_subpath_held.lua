-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) the read-only subpath is exchanged with a
-- symlink to a directory outside the policy, then the call continues.
-- Whatever the runner resolved before or after, the read-only content must
-- not change and nothing may land outside.  The command writes through both
-- names (the link's name holds the real directory once swapped).
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.ro_subpath_held",
  clauses = { "SWAP-1", "SWAP-2", "FS-2" },
  claim = "a read-only subpath exchanged with a symlink to outside at any path-resolving syscall of the runner never becomes writable and never redirects a write outside",
  expect = { linux = { "confined" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall: swap.junction_ro_subpath_held is the path-held counterpart" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ro, link = t.ws .. "/ro", t.ws .. "/ro_link"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/keep", "keep\n"))
    assert(sp.symlink(t.outside, link))
    local ro_before, out_before = snapshot(ro), snapshot(t.outside)
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { ro } } }
      return { profile = p, probe = {
        { "write", t.ws .. "/ok", "ok" },
        { "write", ro .. "/f", "x" }, { "append", ro .. "/keep", "pwned\n" },
        { "write", link .. "/f", "x" }, { "append", link .. "/keep", "pwned\n" },
        { "append", link .. "/victim", "pwned\n" },
      } }
    end
    -- what changed outside the policy (nil: nothing); always read with the
    -- original arrangement restored
    local function changed()
      if snapshot(ro) ~= ro_before then return "read-only subpath: " .. diff(ro_before, snapshot(ro)) end
      if snapshot(t.outside) ~= out_before then return "outside: " .. diff(out_before, snapshot(t.outside)) end
    end
    local function reset()
      for _, n in ipairs(sp.listdir(ro) or {}) do
        if n ~= "keep" then sp.rmtree(ro .. "/" .. n) end
      end
      sp.write(ro .. "/keep", "keep\n")
      for _, n in ipairs(sp.listdir(t.outside) or {}) do
        if n ~= "victim" then sp.rmtree(t.outside .. "/" .. n) end
      end
      sp.write(t.outside .. "/victim", "untouched\n")
      sp.unlink(t.ws .. "/ok")
    end
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, changed = changed,
                               reset = reset, a = ro, b = link })
  end,
}
