-- (b) During setup: hold sweep.  The runner is started under a seccomp hold
-- on its path-resolving syscalls; at the k-th call (every k in turn, the
-- command's own calls included) .git/hooks is exchanged with a symlink to a
-- directory outside the policy, then the call continues.  No hook may be
-- planted in the real hooks directory and nothing may land outside,
-- whether the runner refuses, stops the command or runs it.  The command
-- writes through both names (the link's name holds the real directory once
-- swapped).
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
  id = "swap.protected_held",
  clauses = { "SWAP-1", "SWAP-2", "META-1", "META-5" },
  claim = "a protected path (.git/hooks) exchanged with a symlink to outside at any path-resolving syscall of the runner never lets a hook be planted or a write land outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  run = function(t)
    local hooks, link = t.ws .. "/.git/hooks", t.ws .. "/.git/hooks_link"
    assert(sp.symlink(t.outside, link))
    local hooks_before, out_before = snapshot(hooks), snapshot(t.outside)
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
      sp.unlink(hooks .. "/pre-commit")
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
