-- read_only_subpaths are a component boundary, not a string prefix: the
-- read-only subpath t.ws/proj leaves t.ws/proj2 writable, and the reverse.
-- Host oracles: the read-only directory's file is unchanged, the sibling's
-- was overwritten; the workspace write is the positive control
-- (lib.sibling_prefix_write).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.sibling_prefix_ro_subpath",
  clauses = { "FS-2" },
  claim = "a read_only_subpath /x/proj holds on it and does not reach /x/proj2, nor the reverse",
  expect = { linux = { "exact" }, macos = { "exact" }, windows = { "exact" } },
  impact = { written = "escape", sibling_denied = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.sibling_prefix_write(t, function(path)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { path } } }
      return p
    end)
  end,
}
