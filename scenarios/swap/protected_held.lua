-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) .git/hooks is exchanged with a symlink to a
-- directory outside the policy, then the call continues.  No hook may be
-- planted in the real hooks directory and nothing may land outside,
-- whether the runner refuses, stops the command or runs it.  The command
-- writes through both names (the link's name holds the real directory once
-- swapped).
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.protected_held",
  clauses = { "SWAP-1", "SWAP-2", "META-1", "META-5" },
  claim = "a protected path (.git/hooks) exchanged with a symlink to outside at any path-resolving syscall of the runner never lets a hook be planted or a write land outside",
  expect = { linux = { "confined" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall: swap.junction_hooks_held is the path-held counterpart" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local hooks, link = t.ws .. "/.git/hooks", t.ws .. "/.git/hooks_link"
    assert(sp.symlink(t.outside, link))
    local hooks_before, out_before = snapshot(hooks), snapshot(t.outside)
    local original = {}
    for _, n in ipairs(sp.listdir(hooks) or {}) do original[n] = true end
    local function spec()
      return { probe = {
        { "write", t.ws .. "/ok", "ok" },
        { "write", hooks .. "/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "write", link .. "/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "append", link .. "/victim", "pwned\n" },
      } }
    end
    -- what changed outside the policy (nil: nothing); always read with the
    -- original arrangement restored
    local function changed()
      if snapshot(hooks) ~= hooks_before then return "hooks: " .. diff(hooks_before, snapshot(hooks)) end
      if snapshot(t.outside) ~= out_before then return "outside: " .. diff(out_before, snapshot(t.outside)) end
    end
    local function reset()
      -- everything the command made in the real hooks directory goes (a
      -- write through the link's name lands there once swapped)
      for _, n in ipairs(sp.listdir(hooks) or {}) do
        if not original[n] then sp.rmtree(hooks .. "/" .. n) end
      end
      for _, n in ipairs(sp.listdir(t.outside) or {}) do
        if n ~= "victim" then sp.rmtree(t.outside .. "/" .. n) end
      end
      sp.write(t.outside .. "/victim", "untouched\n")
      sp.unlink(t.ws .. "/ok")
    end
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, changed = changed,
                               reset = reset, a = hooks, b = link })
  end,
}
