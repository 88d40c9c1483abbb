-- A deny-read path appears between the runner's checks: hold sweep.  The
-- runner is started under a seccomp hold on its path-resolving syscalls;
-- at the k-th call a deny-read path that was absent when the run was
-- requested is created, and another that was present is replaced by a new
-- object (renamed away, a new file put at its name), then the call
-- continues.  A runner that decides "absent: nothing to hide" or "hidden"
-- once and never looks again lets the command read what appeared.  The
-- claim covers the runner's setup: every held call before the command's
-- execve (the last execve of the run; the probe never execs).  Calls after
-- it are the command's own time, where the contract promises nothing for
-- deny_read; they are swept and reported, not counted.  The oracle is the
-- host's capture of what the command printed: no secret in it.
local lib = require "sandproof.lib"
local array = lib.array

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.deny_read_appears_held",
  clauses = { "FS-3", "SWAP-1", "SWAP-2" },
  claim = "a deny-read path that appears (created, or replaced by a new object) at any path-resolving syscall of the runner's setup is hidden from the command or the run is refused",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  run = function(t)
    local absent, present = t.ws .. "/absent_secret", t.ws .. "/present_secret"
    assert(sp.write(present, "PRESENT-SECRET-0a11\n"))
    assert(sp.write(t.ws .. "/public", "PUBLIC-77ab\n"))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.deny_read = array { absent, present }
      return { profile = p, probe = {
        { "read", t.ws .. "/public" },                  -- positive control
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
    local n, r0 = t:hold_count { syscalls = SYSCALLS, sandbox = spec() }
    t:ran(r0)
    if not (r0.probe[1] and r0.probe[1].ok and (r0.probe[1].data or ""):find("PUBLIC-77ab", 1, true)) then
      return "control_failed"
    end
    if leaked(r0) then
      t:note("note", "the deny-read content was read in the plain run")
      return "leaked"
    end
    if n == 0 then t:skip("the runner made none of the held syscalls") end
    local mark, names, leaks, kinds, moved = #t.evidence, {}, {}, {}, t.tmp .. "/moved"
    for k = 1, n do
      local at
      local r = t:hold { syscalls = SYSCALLS, at = k, sandbox = spec(), action = function(_, name)
        sp.rename(present, moved)
        if sp.write(present, "PRESENT-SECRET-NEW-0a11\n") and sp.write(absent, "ABSENT-SECRET-f00d\n") then
          at = name
        end
      end }
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
      names[k] = at
      if r.outcome.kind == "sandbox_setup_failure" then
        kinds.refused = (kinds.refused or 0) + 1
      elseif leaked(r) then
        leaks[#leaks + 1] = k
      else
        kinds.hidden = (kinds.hidden or 0) + 1
      end
      sp.unlink(moved)
      reset()
    end
    -- the command's execve: the last execve of the run
    local exec_k = n + 1
    for k = n, 1, -1 do
      if names[k] == "execve" then exec_k = k break end
    end
    local hit, setup_leaks, run_leaks = 0, {}, {}
    for k = 1, exec_k - 1 do if names[k] then hit = hit + 1 end end
    for _, k in ipairs(leaks) do
      if k < exec_k then setup_leaks[#setup_leaks + 1] = k .. ":" .. tostring(names[k])
      else run_leaks[#run_leaks + 1] = k end
    end
    t:set_power { attempts = n, windows = hit, min = exec_k - 1 }
    t:note("note", string.format("windows %d (setup: k < %d, the command's execve), hit %d, refused %d, hidden %d, leaked during setup %d, leaked after the command's execve %d",
      n, exec_k, hit, kinds.refused or 0, kinds.hidden or 0, #setup_leaks, #run_leaks))
    if #setup_leaks > 0 then
      t:note("note", "leaked during setup at k=" .. table.concat(setup_leaks, ", "):sub(1, 4000))
    end
    return #setup_leaks == 0 and "hidden" or "leaked"
  end,
}
