-- The sandbox cannot forge its own stamp: from inside, the command tries to
-- overwrite the root's stamp and lease and to create files in the root
-- itself and in the parent, by their host paths and through ".." from its
-- TMPDIR.  Only tmp/, cache/ and data/ are writable (the positive control
-- writes there).  The oracle is the host: stamp and lease unchanged, no new
-- entry in the root or the parent.
local lib = require "sandproof.lib"

local function listset(dir)
  local s = {}
  for _, n in ipairs(sp.listdir(dir) or {}) do s[n] = true end
  return s
end

return scenario {
  id = "rt.stamp_not_writable_inside",
  clauses = { "RT-3", "RT-5" },
  claim = "a sandboxed command cannot write its runtime root's stamp, lease, root or parent, only tmp/, cache/ and data/",
  expect = { linux = { "protected" }, macos = { "protected" }, windows = { "protected" } },
  impact = { lease_written = "escape", parent_written = "escape", root_written = "escape", stamp_forged = "escape" },
  control = "rt.stamp_recreated",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
    -- first run: learn the root's name (the stamp exists from then on);
    -- a probe op, no shell or /bin/true
    local root = lib.rt_provision(t, p)
    if not root then return "control_failed" end
    local name = root:match("[^/]+$")
    local probe = {
      { "write", root .. "/tmp/ok", "x" },
      { "write", root .. "/cache/ok", "x" },
      { "write", root .. "/data/ok", "x" },
      { "write", root .. ".stamp", "sandproof-runtime-stamp 1\nforged\n", as = "stamp" },
      { "append", root .. ".lease", "x", as = "lease" },
      { "write", root .. "/planted", "x", as = "plant" },
      { "mkdir", root .. "/tmp2", as = "mkdir" },
      { "rename", root .. "/tmp", root .. "/tmp-moved", as = "rename" },
      { "write", root .. "/tmp/../../" .. name .. ".stamp", "forged\n", as = "stamp_dotdot" },
      { "write", parent .. "/planted", "x", as = "parent_plant" },
      { "symlink", t.outside, parent .. "/0123456789abcdef", as = "parent_link" },
    }
    local r = t:ran(t:sandbox { profile = p, probe = probe })
    -- the stamp as this run left it, before the command started
    local stamp_after = sp.read(root .. ".stamp")
    for _, f in ipairs { "tmp", "cache", "data" } do
      if sp.read(root .. "/" .. f .. "/ok") ~= "x" then return "control_failed" end
    end
    local ev = {}
    for _, op in ipairs(probe) do
      local q = op.as and r.op[op.as]
      if op.as then ev[#ev + 1] = string.format("%s %s", op[1], q and (q.ok and "ok" or q.errno) or "?") end
    end
    t:note("note", table.concat(ev, "; "))
    if not stamp_after or stamp_after:find("forged", 1, true) then return "stamp_forged" end
    if (sp.lstat(root .. ".lease") or {}).size ~= 0 then return "lease_written" end
    local in_root, in_parent = listset(root), listset(parent)
    if in_root.planted or in_root.tmp2 or in_root["tmp-moved"] or not in_root.tmp then return "root_written" end
    if in_parent.planted or in_parent["0123456789abcdef"] then return "parent_written" end
    return "protected"
  end,
}
