-- A deny-read directory gains content between the runner's checks: hold
-- sweep.  The runner is started under a seccomp hold on its path-resolving
-- syscalls; at the k-th call (every k in turn, the command's own calls
-- included) a new secret file is created inside the deny-read directory
-- (and an old one replaced), then the call continues.  A runner that hides
-- the files it found when it checked, rather than the directory, leaks the
-- new one.  The oracle is the host's capture of everything the command
-- printed: the secret must never be in it, while a public sibling is
-- (lib.swap_sweep).
local lib = require "sandproof.lib"
local array = lib.array

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.deny_read_created_held",
  clauses = { "FS-3", "SWAP-2" },
  claim = "a file created inside a deny-read directory at any path-resolving syscall of the runner is never readable by the command",
  expect = { linux = { "hidden" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall; no path-held form (creating files in a held directory, not a junction swap, is unverified against a directory oplock)" } },
  impact = { leaked = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local dir = t.ws .. "/secrets"
    assert(sp.mkdir(dir))
    assert(sp.write(dir .. "/old", "OLD-SECRET-1c9f\n"))
    assert(sp.write(t.ws .. "/public", "PUBLIC-77ab\n"))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.deny_read = array { dir }
      return { profile = p, probe = {
        { "read", t.ws .. "/public", as = "public" },   -- positive control
        { "read", dir .. "/new" }, { "read", dir .. "/old", as = "old" }, { "stat", dir .. "/new" },
      } }
    end
    local function leaked(r)
      local out = (r.stdout or "") .. (r.stderr or "")
      return out:find("SECRET", 1, true) ~= nil
    end
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, outcomes = { "hidden", "leaked" },
      control = function(r0)                                              -- positive control
        local pub = r0.op.public
        t:note("note", "plain run: old secret read errno " .. tostring(r0.op.old and r0.op.old.errno))
        return pub and pub.ok and (pub.data or ""):find("PUBLIC-77ab", 1, true) ~= nil
      end,
      -- a new name appears, and an existing one is replaced by a new object
      act = function()
        return sp.write(dir .. "/new", "NEW-SECRET-5e21\n") and sp.unlink(dir .. "/old")
          and sp.write(dir .. "/old", "OLD-SECRET-1c9f\n")
      end,
      undo = function() end,                      -- the new objects stay: reset removes them
      changed = function(r) return leaked(r) and "the secret was read" or nil end,
      reset = function() sp.unlink(dir .. "/new") end })
  end,
}
