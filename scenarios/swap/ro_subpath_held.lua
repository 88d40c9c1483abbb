-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) the read-only subpath is exchanged with a
-- symlink to a directory outside the policy, then the call continues.
-- Whatever the runner resolved before or after, the read-only content must
-- not change and nothing may land outside.  The command writes through both
-- names (the link's name holds the real directory once swapped).
local lib = require "sandproof.lib"
local function array(t) return setmetatable(t, { __jsonarray = true }) end

-- Host oracle: one line per entry under dir (path, type, a file's content);
-- symlinks are listed, never followed.  Equal snapshots: nothing changed.
local function snapshot(dir)
  local out = {}
  local function walk(rel)
    local p = rel == "" and dir or dir .. "/" .. rel
    local st = sp.lstat(p)
    if not st then out[#out + 1] = rel .. " absent" return end
    if st.type == "dir" then
      out[#out + 1] = rel .. "/"
      local names = sp.listdir(p) or {}
      table.sort(names)
      for _, n in ipairs(names) do walk(rel == "" and n or rel .. "/" .. n) end
    else
      out[#out + 1] = rel .. " " .. st.type .. " " .. (tostring(sp.read(p)):gsub("\n", "\\n"))
    end
  end
  walk("")
  return table.concat(out, "\n")
end

-- The lines of after that are not in before (what appeared or changed).
local function diff(before, after)
  local seen, d = {}, {}
  for l in before:gmatch("[^\n]+") do seen[l] = true end
  for l in after:gmatch("[^\n]+") do
    if not seen[l] then d[#d + 1] = l:sub(1, 120) end
  end
  return #d > 0 and table.concat(d, "; ") or "(entries removed)"
end

-- every syscall that resolves a path (unused ones cost nothing)
local SYSCALLS = { "openat", "openat2", "open_tree", "move_mount", "mount_setattr", "mount",
                   "newfstatat", "statx", "chdir", "fchdir", "mkdirat", "symlinkat", "linkat",
                   "renameat2", "unlinkat", "readlink", "readlinkat", "access", "faccessat",
                   "faccessat2", "inotify_add_watch", "execve", "pivot_root", "umount2", "statfs" }

return scenario {
  id = "swap.ro_subpath_held",
  clauses = { "SWAP-1", "SWAP-2", "FS-2" },
  claim = "a read-only subpath exchanged with a symlink to outside at any path-resolving syscall of the runner never becomes writable and never redirects a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
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
