-- deny_write is a component boundary, not a string prefix: deny_write on
-- t.ws/proj keeps proj read-only and leaves t.ws/proj2 writable, and the
-- reverse (deny_write on proj2 leaves proj writable).  Host oracles: the
-- denied directory's file is unchanged, the sibling's was overwritten; the
-- workspace write is the positive control (lib.sibling_prefix_write).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.sibling_prefix_deny_write",
  clauses = { "FS-2" },
  claim = "deny_write on /x/proj holds on it and does not reach /x/proj2, nor the reverse",
  expect = { linux = { "exact" }, macos = { "exact" }, windows = { "exact" } },
  impact = { written = "escape", sibling_denied = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.sibling_prefix_write(t, function(path)
      local p = t.profiles.workspace_write()
      p.filesystem.deny_write = array { path }
      return p
    end)
  end,
}
