-- (a) Before the run: the write root named in the request is a symlink to a
-- directory outside the policy, or passes through a symlinked ancestor.  A
-- runner that resolves the name follows the link and makes the outside
-- writable; the contract wants it refused (or, at the least, confined).
-- The oracle is the host: t.outside must be exactly as it was.
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.write_root_symlink_before",
  clauses = { "SWAP-1", "FS-1" },
  claim = "a write root that is, or passes through, a symlink to a directory outside the policy when the run starts is refused or confined: no write lands outside",
  expect = { linux = { "refused", "confined" }, macos = { "refused", "confined" },
             windows = { "refused", "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local root = t.tmp .. "/root"
    assert(sp.mkdir(root))
    assert(sp.mkdir(t.outside .. "/sub"))
    assert(sp.symlink(t.outside, t.tmp .. "/link"))    -- the write root itself a link
    assert(sp.symlink(t.outside, t.tmp .. "/anc"))     -- an ancestor of it a link
    local before = snapshot(t.outside)
    local function spec(wr)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = wr } }
      return { profile = p, cwd = "/", probe = {
        { "write", wr .. "/f", "x" },
        { "append", wr .. "/victim", "pwned\n" },
        { "mkdir", wr .. "/d" },
      } }
    end
    -- positive control: the same request on a real directory runs and writes
    local r0 = t:ran(t:sandbox(spec(root)))
    if sp.read(root .. "/f") ~= "x" then
      t:note("note", "control: the write into the real write root did not land")
      return "control_failed"
    end
    local refused, ran = 0, 0
    for _, wr in ipairs { t.tmp .. "/link", t.tmp .. "/anc/sub" } do
      local r = t:sandbox(spec(wr))
      local o = r.outcome
      if o.kind == "sandbox_setup_failure" then
        refused = refused + 1
        t:note("note", string.format("%s: refused, step %s errno %s", wr,
          tostring(o.setup_error and o.setup_error.step), tostring(o.setup_error and o.setup_error.errno)))
      else
        t:ran(r)
        ran = ran + 1
        local e = {}
        for _, p in ipairs(r.probe) do e[#e + 1] = p.op .. " " .. (p.ok and "ok" or tostring(p.errno)) end
        t:note("note", wr .. ": ran (" .. tostring(o.kind) .. "): " .. table.concat(e, ", "))
      end
      local now = snapshot(t.outside)
      if now ~= before then
        t:note("note", "outside changed through " .. wr .. ": " .. diff(before, now))
        return "escaped"
      end
    end
    return ran == 0 and "refused" or "confined"
  end,
}
