-- The /tmp a runtime root provides is mounted nosuid and nodev, read from
-- inside (/proc/self/mountinfo, the probe's mountinfo op: the mount /tmp
-- really is).  Twice: with the workspace under /tmp (the sandbox's /tmp is
-- then a private tmpfs holding the mount point of the workspace) and with
-- the workspace and the runtime parent outside /tmp (/tmp is then the
-- root's tmp/ itself, a bind of the host directory: the run's write there
-- lands in root/tmp on the host, the positive control).
local lib = require "sandproof.lib"
local function arr(t) return setmetatable(t, { __jsonarray = true }) end

return scenario {
  id = "rt.tmp_mount_options",
  clauses = { "RT-3", "FS-4" },
  claim = "the /tmp a runtime root provides is mounted nosuid and nodev, whether or not the workspace lies under /tmp",
  expect = { linux = { "as_contracted" },
             macos = { unsupported = "reads the sandbox's mount table (/proc/self/mountinfo): Seatbelt mounts nothing and macOS has no /proc" },
             windows = { unsupported = "reads the sandbox's mount table (/proc/self/mountinfo): Windows has no mounts of this kind" } },
  impact = { ["nosuid_missing:*"] = "hardening", ["nodev_missing:*"] = "hardening",
             ["not_root_tmp:*"] = "fidelity", ["unreadable:*"] = "fidelity" },
  control = "fs.tmp_private",
  needs = { "runtime_roots" },
  run = function(t)
    if not t.vtmp then t:skip("no directory outside /tmp for the workspace") end
    local seen, verdict = {}, nil
    local cases = { { "ws_in_tmp", t.ws, t.tmp .. "/rt" },
                    { "ws_outside_tmp", t.vtmp .. "/ws", t.vtmp .. "/rt" } }
    for _, c in ipairs(cases) do
      local name, ws, parent = c[1], c[2], c[3]
      if not sp.exists(ws) then assert(sp.mkdir(ws)) end
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = arr { { root = ws } }
      p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
      local r = t:ran(t:sandbox { profile = p, cwd = ws,
        probe = { { "env", "TMPDIR", as = "tmpdir" }, { "write", "/tmp/marker", name, as = "marker" },
                  { "mountinfo", "/tmp", as = "tmp" } } })
      local root = type(r.outcome.runtime) == "table" and r.outcome.runtime.root or nil
      if r.outcome.kind ~= "success" or not root or not r.op.marker.ok then return "control_failed" end
      local m = r.op.tmp or {}
      if not m.ok then
        verdict = verdict or "unreadable:" .. name
      else
        local set = lib.opt_set(m.options)
        seen[#seen + 1] = string.format("%s: /tmp is %s %s from %s (mount %s)", name, tostring(m.fstype),
          tostring(m.options), tostring(m.root), tostring(m.mount_id))
        if not set.nosuid then verdict = verdict or "nosuid_missing:" .. name end
        if not set.nodev then verdict = verdict or "nodev_missing:" .. name end
      end
      -- outside /tmp the run's /tmp is the root's tmp/: the write lands there
      if name == "ws_outside_tmp" and sp.read(root .. "/tmp/marker") ~= name then
        verdict = verdict or "not_root_tmp:" .. name
      end
    end
    t:note("note", table.concat(seen, "\n"))
    return verdict or "as_contracted"
  end,
}
