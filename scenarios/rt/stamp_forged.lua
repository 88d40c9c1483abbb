-- A forged stamp does not make a planted object trusted.  After a root is
-- provisioned, its tmp/ is replaced by a symlink to the outside directory
-- and the stamp is rewritten to attest exactly that symlink (its device,
-- inode, owner and mode), so stamp and objects agree.  The next run must
-- still refuse the object: re-provision tmp/ as a private directory, and
-- the command's TMPDIR write must land in the root, never outside.
-- Shell-free: a first run provisions the root and reports its TMPDIR; the
-- command is a probe write to <root>/tmp/planted, the path TMPDIR names.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.stamp_forged",
  clauses = { "RT-5", "RT-3" },
  claim = "a stamp forged to attest a symlinked tmp/ does not make the runner use it: tmp/ is re-provisioned and writes stay in the root",
  expect = { linux = { "reprovisioned" }, macos = { "reprovisioned" }, windows = { "reprovisioned" } },
  impact = { escaped = "escape", trusted_stamp = "hardening", lost_write = "fidelity", ["run_failed:*"] = "fidelity" },
  control = "rt.stamp_recreated",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local write = { { "write", root .. "/tmp/planted", "forged\n" } }
    local _, ok1 = lib.rt_run(t, { profile = p }, root, write)
    if not ok1 or not sp.exists(root .. "/tmp/planted") then return "control_failed" end
    assert(sp.rmtree(root .. "/tmp"))
    assert(sp.symlink(t.outside, root .. "/tmp"))
    local st = assert(sp.lstat(root .. "/tmp"))
    local stamp = assert(sp.read(root .. ".stamp"))
    local forged, n = stamp:gsub("\nobj tmp [^\n]*\n", string.format("\nobj tmp %d %d %d %o\n",
      st.dev, st.ino, st.uid, 40960 + st.mode)) -- S_IFLNK | permissions
    assert(n == 1, "stamp without a tmp object")
    assert(sp.write(root .. ".stamp", forged, 384))
    local r = t:sandbox { profile = p, probe = write }
    local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
    t:note("note", string.format("kind %s reprovisioned %s (%s)", tostring(r.outcome.kind),
      tostring(rt.reprovisioned), tostring(rt.reprovision_reason)))
    if sp.exists(t.outside .. "/planted") then return "escaped" end
    if r.outcome.kind ~= "success" then return "run_failed:" .. tostring(r.outcome.kind) end
    local now = sp.lstat(root .. "/tmp") or {}
    if rt.reprovisioned ~= true or now.type ~= "dir" then return "trusted_stamp" end
    if sp.read(root .. "/tmp/planted") ~= "forged\n" then return "lost_write" end
    return "reprovisioned"
  end,
}
