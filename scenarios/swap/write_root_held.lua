-- Hold sweep: the runner under test is started under a seccomp hold on the
-- path-resolving syscalls; at the k-th such call (every k in turn) the
-- write root is exchanged with a symlink to a directory outside the
-- policy, then the call continues.  Whatever the runner resolved before or
-- after, the command's write must never land outside.
local SYSCALLS = { "openat", "openat2", "open_tree", "move_mount", "mount_setattr",
                   "newfstatat", "statx", "chdir", "fchdir", "mkdirat", "mount" }

return scenario {
  id = "swap.write_root_held",
  clauses = { "SWAP-1", "SWAP-2", "SWAP-3" },
  claim = "a write root exchanged with a symlink at any path-resolving syscall of the runner never redirects a write outside the policy",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  run = function(t)
    local root = t.tmp .. "/root"
    local link = t.tmp .. "/link"
    assert(sp.mkdir(root))
    assert(sp.symlink(t.outside, link))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = setmetatable({ { root = root } }, { __jsonarray = true })
      return { profile = p, cwd = t.tmp, probe = { { "write", root .. "/f", "x" } } }
    end
    -- positive control and the number of windows: a plain run
    local n, r0 = t:hold_count { syscalls = SYSCALLS, sandbox = spec() }
    t:ran(r0)
    if sp.read(root .. "/f") ~= "x" then return "control_failed" end
    sp.unlink(root .. "/f")
    if n == 0 then t:skip("the runner made none of the held syscalls") end
    local escaped, hit, mark = 0, 0, #t.evidence
    for k = 1, n do
      local swapped = false
      t:hold { syscalls = SYSCALLS, at = k, sandbox = spec(), action = function()
        t:swap(root, link)
        swapped = true
      end }
      -- keep the evidence readable: the escapes and the summary only
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
      if swapped then
        hit = hit + 1
        t:swap(root, link) -- back to the original arrangement
      end
      if sp.exists(t.outside .. "/f") then
        escaped = escaped + 1
        t:note("note", "write landed outside at k=" .. k)
        mark = #t.evidence
        sp.unlink(t.outside .. "/f")
      end
      sp.unlink(root .. "/f")
    end
    t:set_power { attempts = n, windows = hit, min = n }
    t:note("note", string.format("windows %d, hit %d, escaped %d", n, hit, escaped))
    return escaped == 0 and "confined" or "escaped"
  end,
}
