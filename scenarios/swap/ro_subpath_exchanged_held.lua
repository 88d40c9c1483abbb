-- Hold sweep, directory for directory: the runner under test is started
-- under a seccomp hold on its mount-making calls (openat2, open_tree,
-- move_mount, mount); at the k-th one (every k in turn) the read-only
-- subpath ro is exchanged with another directory of the workspace, other,
-- then the call continues.  No symlink is involved, so only the identity
-- check between the pinned object and the mount target (SWAP-2) can tell:
-- a runner that binds the object it pinned read-only onto wherever the
-- name points after the exchange leaves that object writable through the
-- workspace under the other name.  In each run the command looks at both
-- names (the probe's stat: which object, dev and inode) and writes beneath
-- both.  The escape: one object shown under both names, read-only under
-- one and written under the other, and the write found on the host in that
-- object.  An exchange before the runner resolved ro is no escape (ro then
-- is the other directory, read-only, and the old one is writable by its new
-- name); after the mounts it is none either (the mounts stay on their
-- objects).  Positive control: the plain run shows the two directories
-- apart, ro read-only and other writable.
local lib = require "sandproof.lib"

local SYSCALLS = { "openat2", "open_tree", "move_mount", "mount" }

return scenario {
  id = "swap.ro_subpath_exchanged_held",
  clauses = { "SWAP-2", "FS-2" },
  claim = "a read-only subpath exchanged with another directory of the write root at any mount step of the runner never becomes writable under the other name",
  expect = { linux = { "confined" },
             macos = { unsupported = "no syscall interposition on macOS: the hold sweep needs seccomp user notification" },
             windows = { unsupported = "a Windows hold names a path (an oplock), not a syscall, and a held path cannot be renamed there: swap.junction_ro_subpath_held retargets instead" } },
  impact = { escaped = "escape" },
  control = "fs.read_only_subpath",
  run = function(t)
    local ro, other = t.ws .. "/ro", t.ws .. "/other"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/keep", "keep\n"))
    assert(sp.mkdir(other))
    assert(sp.write(other .. "/mine", "mine\n"))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = lib.array { { root = t.ws, read_only_subpaths = lib.array { ro } } }
      return { profile = p, probe = {
        { "write", t.ws .. "/ok", "ok" },
        { "stat", ro, as = "ro_stat" }, { "write", ro .. "/planted", "x", as = "ro_write" },
        { "stat", other, as = "other_stat" }, { "write", other .. "/planted", "x", as = "other_write" },
      } }
    end
    local function reset()
      sp.unlink(ro .. "/planted")
      sp.unlink(other .. "/planted")
      sp.unlink(t.ws .. "/ok")
    end
    -- The escape in run r (names restored on the host), or nil.
    local function escape(r)
      local s1, w1, s2, w2 = r.op.ro_stat, r.op.ro_write, r.op.other_stat, r.op.other_write
      if not (s1 and w1 and s2 and w2 and s1.ok and s2.ok) then return nil end
      if s1.dev ~= s2.dev or s1.ino ~= s2.ino or w1.ok == w2.ok then return nil end
      for _, dir in ipairs { ro, other } do
        local st = sp.lstat(dir)
        if st and st.ino == s1.ino and sp.exists(dir .. "/planted") then
          return string.format("object %s:%s shown at both names, written under %s", tostring(s1.dev),
            tostring(s1.ino), w1.ok and "ro" or "other")
        end
      end
      return nil
    end
    return lib.swap_sweep(t, { syscalls = SYSCALLS, spec = spec, a = ro, b = other,
      -- positive control: the plain run shows the two apart, ro read-only, other writable
      control = function(r0)
        local a, b = r0.op.ro_stat, r0.op.other_stat
        return sp.read(t.ws .. "/ok") == "ok" and a and b and a.ok and b.ok and a.ino ~= b.ino and
          r0.op.ro_write and not r0.op.ro_write.ok and r0.op.other_write and r0.op.other_write.ok and
          sp.read(other .. "/planted") == "x"
      end,
      changed = function(r) return escape(r) end,
      reset = reset })
  end,
}
