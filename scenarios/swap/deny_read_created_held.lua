-- A deny-read directory gains content between the runner's checks: hold
-- sweep.  The runner is started under a seccomp hold on its path-resolving
-- syscalls; at the k-th call (every k in turn, the command's own calls
-- included) a new secret file is created inside the deny-read directory
-- (and an old one replaced), then the call continues.  A runner that hides
-- the files it found when it checked, rather than the directory, leaks the
-- new one.  The oracle is the host's capture of everything the command
-- printed: the secret must never be in it, while a public sibling is.
local lib = require "sandproof.lib"
local array = lib.array

local SYSCALLS = lib.PATH_SYSCALLS

return scenario {
  id = "swap.deny_read_created_held",
  clauses = { "FS-3", "SWAP-2" },
  claim = "a file created inside a deny-read directory at any path-resolving syscall of the runner is never readable by the command",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  run = function(t)
    local dir = t.ws .. "/secrets"
    assert(sp.mkdir(dir))
    assert(sp.write(dir .. "/old", "OLD-SECRET-1c9f\n"))
    assert(sp.write(t.ws .. "/public", "PUBLIC-77ab\n"))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.deny_read = array { dir }
      return { profile = p, probe = {
        { "read", t.ws .. "/public" },                  -- positive control
        { "read", dir .. "/new" }, { "read", dir .. "/old" }, { "stat", dir .. "/new" },
      } }
    end
    local function leaked(r)
      local out = (r.stdout or "") .. (r.stderr or "")
      return out:find("SECRET", 1, true) ~= nil
    end
    -- positive control and the number of windows: a plain run
    local n, r0 = t:hold_count { syscalls = SYSCALLS, sandbox = spec() }
    t:ran(r0)
    if not (r0.probe[1] and r0.probe[1].ok and (r0.probe[1].data or ""):find("PUBLIC-77ab", 1, true)) then
      return "control_failed"
    end
    if leaked(r0) then
      t:note("note", "the deny-read content was read in the plain run")
      return "leaked"
    end
    t:note("note", "plain run: old secret read errno " .. tostring(r0.probe[3] and r0.probe[3].errno))
    if n == 0 then t:skip("the runner made none of the held syscalls") end
    local mark, hit, leaks, kinds = #t.evidence, 0, {}, {}
    for k = 1, n do
      local at
      local r = t:hold { syscalls = SYSCALLS, at = k, sandbox = spec(), action = function(_, name)
        -- a new name appears, and an existing one is replaced by a new object
        if sp.write(dir .. "/new", "NEW-SECRET-5e21\n") and sp.unlink(dir .. "/old")
           and sp.write(dir .. "/old", "OLD-SECRET-1c9f\n") then at = name end
      end }
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
      if at then hit = hit + 1 end
      local kind = tostring(r.outcome.kind)
      kinds[kind] = (kinds[kind] or 0) + 1
      if leaked(r) then
        leaks[#leaks + 1] = k
        if #leaks <= 4 then t:note("note", string.format("k=%d (%s), outcome %s: the secret was read", k, tostring(at), kind)) end
        mark = #t.evidence
      end
      sp.unlink(dir .. "/new")
    end
    t:set_power { attempts = n, windows = hit, min = n }
    t:note("note", string.format("windows %d, hit %d, outcomes %s, leaked %d%s", n, hit,
      lib.tally(kinds), #leaks, #leaks > 0 and (" at k=" .. table.concat(leaks, ",")) or ""))
    return #leaks == 0 and "hidden" or "leaked"
  end,
}
