-- Symlink escape from inside the workspace: symlinks already in the
-- workspace when the run starts (as a cloned repository may hold) point at
-- a directory and a file outside the policy; the command writes through
-- them.  A write follows the link in the sandbox's own view, so it must
-- meet nothing writable there.  The oracle is the host: t.outside exactly
-- as it was.
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.symlink_in_workspace",
  clauses = { "FS-1", "SWAP-3" },
  claim = "symlinks in the workspace pointing outside (to a directory and to a file) never carry a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    assert(sp.symlink(t.outside, t.ws .. "/out"))
    assert(sp.symlink(t.outside .. "/victim", t.ws .. "/victim_link"))
    assert(sp.symlink(t.tmp, t.ws .. "/up"))
    local before = snapshot(t.outside)
    local r = t:ran(t:sandbox { probe = {
      { "write", t.ws .. "/ok", "ok" },                         -- positive control
      { "write", t.ws .. "/out/f", "x" },
      { "mkdir", t.ws .. "/out/d" },
      { "append", t.ws .. "/victim_link", "pwned\n" },
      { "write", t.ws .. "/victim_link", "pwned\n" },
      { "write", t.ws .. "/up/outside/g", "x" },
      { "rename", t.ws .. "/out/victim", t.ws .. "/stolen" },
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", table.concat(e, ", "))
    if sp.read(t.ws .. "/ok") ~= "ok" then return "control_failed" end
    local now = snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. diff(before, now))
      return "escaped"
    end
    return "confined"
  end,
}
