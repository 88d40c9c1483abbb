-- (a) Before the run: a read-only subpath of the write root is a symlink to
-- a directory outside the policy, or passes through a symlinked directory
-- of the workspace.  A runner that resolves the name would bind the outside
-- read-only and leave the name writable; the contract wants it refused (or
-- confined).  Host oracles: t.outside unchanged, and in the positive control
-- the real read-only subpath unchanged.
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.ro_subpath_symlink_before",
  clauses = { "SWAP-1", "FS-2" },
  claim = "a read-only subpath that is, or passes through, a symlink to outside when the run starts is refused or confined: no write lands outside or in the read-only content",
  expect = { linux = { "refused", "confined" }, macos = { "refused", "confined" },
             windows = { "refused", "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ro = t.ws .. "/ro"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/keep", "keep\n"))
    assert(sp.mkdir(t.outside .. "/sub"))
    assert(sp.symlink(t.outside, t.ws .. "/ro_link"))   -- the subpath itself a link
    assert(sp.symlink(t.outside, t.ws .. "/anc"))       -- an ancestor of it a link
    local ro_before, out_before = snapshot(ro), snapshot(t.outside)
    local function spec(sub)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { sub } } }
      return { profile = p, probe = {
        { "write", t.ws .. "/ok", "ok" },
        { "write", sub .. "/f", "x", as = "write" },
        { "append", sub .. "/victim", "pwned\n" },
        { "append", sub .. "/keep", "pwned\n" },
      } }
    end
    -- positive control: a real read-only subpath runs, the workspace is
    -- writable and the subpath is not
    local r0 = t:ran(t:sandbox(spec(ro)))
    if sp.read(t.ws .. "/ok") ~= "ok" then return "control_failed" end
    if snapshot(ro) ~= ro_before then
      t:note("note", "the read-only subpath changed in the control run: " .. diff(ro_before, snapshot(ro)))
      return "escaped"
    end
    t:note("note", "control: read-only write errno " .. tostring(r0.op.write and r0.op.write.errno))
    sp.unlink(t.ws .. "/ok")
    local ran = 0
    for _, sub in ipairs { t.ws .. "/ro_link", t.ws .. "/anc/sub" } do
      local r = t:sandbox(spec(sub))
      local o = r.outcome
      if o.kind == "sandbox_setup_failure" then
        t:note("note", string.format("%s: refused, step %s errno %s", sub,
          tostring(o.setup_error and o.setup_error.step), tostring(o.setup_error and o.setup_error.errno)))
      else
        t:ran(r)
        ran = ran + 1
        local e = {}
        for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
        t:note("note", sub .. ": ran (" .. tostring(o.kind) .. "): " .. table.concat(e, ", "))
      end
      if snapshot(t.outside) ~= out_before then
        t:note("note", "outside changed through " .. sub .. ": " .. diff(out_before, snapshot(t.outside)))
        return "escaped"
      end
      if snapshot(ro) ~= ro_before then
        t:note("note", "read-only subpath changed: " .. diff(ro_before, snapshot(ro)))
        return "escaped"
      end
    end
    return ran == 0 and "refused" or "confined"
  end,
}
