-- Eviction never deletes through a mount point inside a root (RT-6): in a
-- mount namespace of the harness's own, a bind mount of an outside
-- directory of the same file system (same device number: only the mount
-- id tells it apart) and a fresh tmpfs are mounted in a runtime root's
-- cache/; `gc --max-age 0 --max-roots 0` must evict the root (the rest of
-- it goes: the positive control) and leave both mounts' content.  The
-- outside directory is checked on the host after the namespace ended; the
-- tmpfs, which ends with it, at the place the kernel's mount table gives
-- it after the gc (the root is renamed away first).  Linux: the mounts need
-- a user and mount namespace; a host that refuses them skips.
local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.evict_mount_inside",
  clauses = { "RT-6" },
  claim = "eviction deletes a runtime root but never what a bind mount (same file system) or a tmpfs mounted inside it shows",
  expect = { linux = { "untouched" },
             macos = { unsupported = "bind mounts in a private mount namespace are Linux's" },
             windows = { unsupported = "bind mounts in a private mount namespace are Linux's" } },
  impact = { bind_emptied = "escape", tmpfs_emptied = "escape", gc_failed = "fidelity" },
  control = "rt.evict_age",
  needs = { "gc", "runtime_roots" },
  run = function(t)
    local parent, ws, src = t.tmp .. "/rt", t.tmp .. "/ws-rt", t.outside .. "/src"
    assert(sp.mkdir(ws))
    assert(sp.mkdir(src))
    assert(sp.mkdir(src .. "/sub"))
    assert(sp.write(src .. "/keep", "outside\n"))
    assert(sp.write(src .. "/sub/keep", "outside too\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = arr { { root = ws } }
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local r = t:ran(t:sandbox { profile = p, cwd = ws, probe = { { "write", ws .. "/x", "x" } } })
    local root = type(r.outcome.runtime) == "table" and r.outcome.runtime.root or nil
    if r.outcome.kind ~= "success" or type(root) ~= "string" then return "control_failed" end
    assert(sp.mkdir(root .. "/cache/bound"))
    assert(sp.mkdir(root .. "/cache/tmpfs"))
    assert(sp.write(root .. "/cache/plain", "the root's own\n"))
    local g = t:gc { parent = parent, max_age_s = 0, max_roots = 0,
                     mounts = { { at = root .. "/cache/bound", bind = src },
                                { at = root .. "/cache/tmpfs", tmpfs = "in the tmpfs" } } }
    if g.unsupported then t:unsupported(g.unsupported) end
    if g.mounts_failed then t:skip("no user and mount namespace here: " .. g.mounts_failed) end
    t:note("note", string.format("gc: %s; the tmpfs's file after it: %s", tostring(g.summary),
      tostring(g.kept and g.kept[2])))
    if not g.ran or g.evicted ~= 1 then return "gc_failed" end
    if sp.exists(root) or sp.exists(root .. "/cache/plain") then return "control_failed" end
    if sp.read(src .. "/keep") ~= "outside\n" or sp.read(src .. "/sub/keep") ~= "outside too\n" then
      return "bind_emptied"
    end
    if g.kept[2] ~= "in the tmpfs" then return "tmpfs_emptied" end
    return "untouched"
  end,
}
