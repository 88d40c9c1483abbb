-- The root belongs to the canonical workspace: <parent>/<first 16 hex of
-- sha256(canonical path)>, the parent itself taken canonically.  A
-- workspace used by its plain path, then with an uncleaned spelling ("//",
-- "/./", a trailing "/"), then with the runtime parent named through a
-- symlinked ancestor, must always get the same root and, from the second
-- use on, find its stamp (reprovisioned false).  The name is checked
-- against sha256sum of the canonical path (realpath), computed on the
-- host.  (A write root through a symlink is refused outright, SWAP-1, so
-- the symlinked ancestor is tried on the parent.)  The command is probe
-- ops, no shell: the first run reports its TMPDIR, each later one appends
-- to <root>/tmp/uses (and reports its TMPDIR, which must be that root's).
local lib = require "sandproof.lib"

local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.stamp_canonical_workspace",
  clauses = { "RT-1", "RT-5" },
  claim = "the root is named by sha256 of the canonical workspace: an uncleaned spelling, or the parent named through a symlink, finds the same root and stamp",
  expect = { linux = { "same_root" }, macos = { "same_root" },
             windows = { unsupported = "the expected root name comes from the host's realpath and sha256sum, which native Windows lacks" } },
  impact = { misderived = "fidelity", other_root = "fidelity", run_failed = "fidelity", stamp_not_found = "fidelity" },
  control = "rt.stamp_recreated",
  run = function(t)
    local real = t.tmp .. "/real"
    assert(sp.mkdir(real))
    assert(sp.mkdir(real .. "/proj"))
    assert(sp.mkdir(t.tmp .. "/preal"))
    assert(sp.symlink(t.tmp .. "/preal", t.tmp .. "/plink"))
    local parent = t.tmp .. "/preal/rt"
    local known -- the root, once the first run reported it
    local function use(ws, par)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = arr { { root = ws } }
      p.runtime = { parent = par or parent, max_age_s = 864000, max_roots = 64 }
      local ops = known and { { "append", known .. "/tmp/uses", "x\n" } } or {}
      local r, ok, why = lib.rt_run(t, { profile = p, cwd = real .. "/proj" }, known or "?", ops)
      local rt = type(r.outcome.runtime) == "table" and r.outcome.runtime or {}
      t:note("note", string.format("%s: kind %s root %s reprovisioned %s%s", ws, tostring(r.outcome.kind),
        tostring(rt.root), tostring(rt.reprovisioned), known and why and ("; " .. why) or ""))
      if not known then
        local td = r.op["rt:tmpdir"]
        return r.outcome.kind == "success" and td and td.value == tostring(rt.root) .. "/tmp", rt
      end
      return r.outcome.kind == "success", rt
    end
    local ok1, rt1 = use(real .. "/proj")
    if not ok1 or type(rt1.root) ~= "string" then return "control_failed" end
    known = rt1.root
    local ok0 = use(real .. "/proj") -- the first append, by the plain spelling
    if not ok0 then return "control_failed" end
    -- the expected name, from the host's own tools
    local rp = sp.spawn { argv = { "realpath", real .. "/proj" }, timeout_ms = 5000 }
    local canonical = rp and rp.code == 0 and rp.stdout:gsub("\n$", "")
    local hs = canonical and sp.spawn { argv = { "sha256sum" }, stdin = canonical, timeout_ms = 5000 }
    local hex = hs and hs.code == 0 and hs.stdout:match("^(%x+)")
    if not hex then return "control_failed" end
    local want = parent .. "/" .. hex:sub(1, 16)
    t:note("note", "sha256(" .. canonical .. ") -> " .. hex:sub(1, 16))
    if rt1.root ~= want then return "misderived" end
    for _, v in ipairs { { real .. "//./proj/" }, { real .. "/proj", t.tmp .. "/plink/rt" } } do
      local ok, rt = use(v[1], v[2])
      if not ok then return "run_failed" end
      if rt.root ~= want then return "other_root" end
      if rt.reprovisioned ~= false then return "stamp_not_found" end
    end
    if sp.read(want .. "/tmp/uses") ~= "x\nx\nx\n" then return "control_failed" end
    return "same_root"
  end,
}
