-- A deny-read path appears between the runner's checks: hold sweep.  The
-- runner is started under a seccomp hold on its path-resolving syscalls;
-- at the k-th call a deny-read path that was absent when the run was
-- requested is created, and another that was present is replaced by a new
-- object (renamed away, a new file put at its name), then the call
-- continues.  A runner that decides "absent: nothing to hide" or "hidden"
-- once and never looks again lets the command read what appeared.  The
-- claim covers the runner's setup: every held call before the command's
-- execve (told in each run by the caller: call counts vary by one or two
-- between runs; the probe never execs).  Calls after it are the command's
-- own time, where the contract promises nothing for
-- deny_read; they are swept and reported, not counted.  The oracle is the
-- host's capture of what the command printed: no secret in it
-- (lib.swap_sweep with setup_only).
local lib = require "sandproof.lib"
local array = lib.array

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.deny_read_appears_held",
  clauses = { "FS-3", "SWAP-1", "SWAP-2" },
  claim = "a deny-read path that appears (created, or replaced by a new object) at any path-resolving syscall of the runner's setup is hidden from the command or the run is refused",
  expect = { linux = { "hidden" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall; an absent deny-read path has nothing to take an oplock on, so there is no path-held form" } },
  impact = { leaked = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local absent, present = t.ws .. "/absent_secret", t.ws .. "/present_secret"
    assert(sp.write(present, "PRESENT-SECRET-0a11\n"))
    assert(sp.write(t.ws .. "/public", "PUBLIC-77ab\n"))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.deny_read = array { absent, present }
      return { profile = p, probe = {
        { "read", t.ws .. "/public", as = "public" },   -- positive control
        { "read", absent }, { "read", present },
      } }
    end
    local function leaked(r)
      local out = (r.stdout or "") .. (r.stderr or "")
      return out:find("SECRET", 1, true) ~= nil
    end
    local function reset()
      sp.unlink(absent)
      sp.write(present, "PRESENT-SECRET-0a11\n")
    end
    local moved = t.tmp .. "/moved"
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, outcomes = { "hidden", "leaked" },
      setup_only = true,                          -- the claim is the runner's setup's
      control = function(r0)                                              -- positive control
        local pub = r0.op.public
        return pub and pub.ok and (pub.data or ""):find("PUBLIC-77ab", 1, true) ~= nil
      end,
      act = function()
        sp.rename(present, moved)
        return sp.write(present, "PRESENT-SECRET-NEW-0a11\n") and sp.write(absent, "ABSENT-SECRET-f00d\n")
      end,
      undo = function() end,                      -- reset restores the scene
      -- a refused run (nothing ran) hides everything
      changed = function(r)
        if r.outcome.kind == "sandbox_setup_failure" then return nil end
        return leaked(r) and "the deny-read content was read" or nil
      end,
      reset = function() sp.unlink(moved) reset() end })
  end,
}
