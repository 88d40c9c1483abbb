-- Windows: NTFS names a file's or directory's streams after a colon:
-- .git\hooks:evil is a data stream of the hooks directory itself, and
-- hooks\pre-commit::$DATA the default stream of pre-commit (the file).
-- A policy matching names, not objects, may miss both.  The command writes
-- through each; the host reads each back (a stream shows only there) and
-- snapshots .git\hooks.
local lib = require "sandproof.lib"

local function SPELL(hooks) return { hooks .. ":evil", hooks .. "/pre-commit::$DATA" } end

return scenario {
  id = "meta.win_hooks_ads",
  clauses = { "META-1" },
  claim = "a hook cannot be planted in .git\\hooks through an alternate data stream (.git\\hooks:evil, pre-commit::$DATA)",
  expect = { linux = { unsupported = "windows only: alternate data streams are an NTFS spelling" },
             macos = { unsupported = "windows only: alternate data streams are an NTFS spelling" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.win_hook_spellings(t, SPELL)
  end,
}
