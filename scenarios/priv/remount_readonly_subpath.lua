-- PRIV-2 / FS-2: a read-only subpath of the workspace cannot be made
-- writable from inside by remounting it (mount MS_REMOUNT|MS_BIND without
-- MS_RDONLY).  Host-side oracle: a file written beneath it after the
-- attempt must not exist on the host.  Positive control: the sibling write
-- in the writable workspace lands (lib.ro_subpath_kept).
local lib = require "sandproof.lib"

return scenario {
  id = "priv.remount_readonly_subpath",
  clauses = { "PRIV-2", "FS-2" },
  claim = "the command cannot remount a read-only subpath read-write and write beneath it",
  expect = { linux = { "held" },
             macos = { unsupported = "remounting needs the sandbox's own mount namespace (Linux); Seatbelt mounts nothing" },
             windows = { "held" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t) return lib.ro_subpath_kept(t, "remount") end,
}
