-- Hold sweep: the runner under test is started under a seccomp hold on the
-- path-resolving syscalls; at the k-th such call (every k in turn) the
-- write root is exchanged with a symlink to a directory outside the
-- policy, then the call continues.  Whatever the runner resolved before or
-- after, the command's write must never land outside (lib.swap_sweep).
local lib = require "sandproof.lib"

local SYSCALLS = lib.WRITE_ROOT_SYSCALLS

return scenario {
  id = "swap.write_root_held",
  clauses = { "SWAP-1", "SWAP-2", "SWAP-3" },
  claim = "a write root exchanged with a symlink at any path-resolving syscall of the runner never redirects a write outside the policy",
  expect = { linux = { "confined" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall: swap.junction_write_root_held is the path-held counterpart" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local root = t.tmp .. "/root"
    local link = t.tmp .. "/link"
    assert(sp.mkdir(root))
    assert(sp.symlink(t.outside, link))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = lib.array { { root = root } }
      return { profile = p, cwd = t.tmp, probe = { { "write", root .. "/f", "x" } } }
    end
    local function escaped() return sp.exists(t.outside .. "/f") and "outside/f written" or nil end
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec,
      control = function() return sp.read(root .. "/f") == "x" end,       -- positive control
      act = function() t:swap(root, link) return true end,
      undo = function() t:swap(root, link) end,                           -- back to the original arrangement
      changed = function() return escaped() end,
      reset = function() sp.unlink(t.outside .. "/f") sp.unlink(root .. "/f") end })
  end,
}
