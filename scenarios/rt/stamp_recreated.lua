-- A stamp attests to a plan, not to the object.  A root is provisioned and
-- then used again (the positive control: an intact root takes the fast
-- path, reprovisioned false).  Then, keeping its stamp, the root is removed
-- and recreated by someone else: once with mode 0755, once as a perfect
-- look-alike (mode 0700, same owner, only the inode differs), and as root
-- once owned by another user.  The new root is built beside the old one and
-- moved into its place, so it is provably another object (checked against
-- the identity the stamp lists; a recreated root with the stamp's inode is
-- an error, never a pass).  Each time the next run must re-verify,
-- report reprovisioned with a reason, and leave a private 0700 root of the
-- caller with a working TMPDIR.  Shell-free: the first run reports its
-- TMPDIR; each later one writes y there and reads it back by probe ops.
-- The other-owner case needs a uid (chown): POSIX as root only.
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.stamp_recreated",
  clauses = { "RT-5" },
  claim = "a root removed and recreated with another mode, inode or owner is re-provisioned on its next use, never trusted on its stamp",
  expect = { linux = { "reprovisioned" }, macos = { "reprovisioned" }, windows = { "reprovisioned" } },
  impact = { not_private = "exposure", trusted_stamp = "hardening", run_failed = "fidelity" },
  control = "rt.stamp_canonical_workspace",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local function use()
      local f = root .. "/tmp/f"
      local r, ok, why = lib.rt_run(t, { profile = p }, root, { { "write", f, "y\n" }, { "read", f, as = "f" } })
      local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
      t:note("note", string.format("kind %s reprovisioned %s (%s)%s", tostring(r.outcome.kind),
        tostring(rt.reprovisioned), tostring(rt.reprovision_reason), why and ("; " .. why) or ""))
      return ok and r.op.f.data == "y\n", rt
    end
    local ok2, rt2 = use()
    if not ok2 or rt2.reprovisioned ~= false then return "control_failed" end -- the fast path
    local me = sp.getuid()
    local variants = { { mode = 493, name = "mode 0755" }, { mode = 448, name = "look-alike 0700" } }
    if me == 0 and sp.os ~= "windows" and sp.os ~= "wine" then
      variants[#variants + 1] = { mode = 448, owner = "65534:65534", name = "owned by 65534" }
    else
      t:note("note", "not root, or no uid (Windows): the other-owner case is not exercised (needs chown)")
    end
    -- the layout the stamp lists ("obj <rel> ..." after the root's "."), so
    -- a recreated root differs from the stamp only where a variant says
    local layout = {}
    for rel in assert(sp.read(root .. ".stamp")):gmatch("\nobj ([^ ]+) ") do
      if rel ~= "." then layout[#layout + 1] = rel end
    end
    if #layout == 0 then return "control_failed" end
    -- the root's identity as the stamp lists it ("obj . <dev> <ino> ...")
    local function stamped()
      local dev, ino = assert(sp.read(root .. ".stamp")):match("\nobj %. (%d+) (%d+) ")
      return math.tointeger(tonumber(dev)), math.tointeger(tonumber(ino))
    end
    local fresh, old = t.tmp .. "/recreated", t.tmp .. "/removed"
    for _, v in ipairs(variants) do
      -- The new root is built beside the old one while every object of the
      -- old one still exists, so each new object has an inode the stamp
      -- does not list; only then is the old root moved aside and removed.
      -- (Removing first and recreating after lets the file system hand the
      -- freed inodes straight back - ext4 does - and the look-alike would be
      -- the stamp's very identity: a root nobody could tell apart.)
      assert(sp.mkdir(fresh, 448))
      for _, rel in ipairs(layout) do
        assert(sp.mkdir(fresh .. "/" .. rel, 448))
        assert(sp.chmod(fresh .. "/" .. rel, 448))
      end
      assert(sp.chmod(fresh, v.mode))
      if v.owner then
        local c = sp.spawn { argv = { "chown", v.owner, fresh }, timeout_ms = 5000 }
        if not (c and c.code == 0) then t:error("chown failed") end
      end
      assert(sp.rename(root, old))
      assert(sp.rename(fresh, root))
      assert(sp.rmtree(old))
      local sdev, sino = stamped()
      local now = assert(sp.lstat(root))
      if sino == nil or (now.dev == sdev and now.ino == sino) then
        t:error(v.name .. ": the recreated root is not a new object (stamp " ..
          tostring(sdev) .. ":" .. tostring(sino) .. ")")
      end
      local ok, rt = use()
      local st = sp.lstat(root) or {}
      if not ok then return "run_failed" end
      if rt.reprovisioned ~= true or type(rt.reprovision_reason) ~= "string" or rt.reprovision_reason == "" then
        t:note("note", v.name .. ": trusted on its stamp")
        return "trusted_stamp"
      end
      if st.type ~= "dir" or st.mode ~= 448 or st.uid ~= me or not sp.exists(root .. "/tmp/f") then
        t:note("note", string.format("%s: root now mode %o uid %s", v.name, st.mode or 0, tostring(st.uid)))
        return "not_private"
      end
    end
    return "reprovisioned"
  end,
}
