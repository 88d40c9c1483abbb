-- Windows: NTFS may give .git an 8.3 short name (GIT~1), which opens the
-- same directory.  Skipped on Windows when the volume made none (8.3
-- generation off).
-- A policy matching long names may miss it.
local lib = require "sandproof.lib"

return scenario {
  id = "meta.win_hooks_shortname",
  clauses = { "META-1" },
  claim = "a hook cannot be planted in .git\\hooks through its 8.3 short name",
  expect = { linux = { unsupported = "windows only: 8.3 short names are an NTFS/FAT spelling" },
             macos = { unsupported = "windows only: 8.3 short names are an NTFS/FAT spelling" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local short = t.ws .. "/GIT~1"
    local st = sp.lstat(short)
    -- Only Windows makes short names: elsewhere (a bring-up platform, Wine)
    -- the runner answers for the spelling, never a skip of ours.
    if t.os == "windows" and not (st and st.type == "dir" and sp.exists(short .. "/hooks")) then
      t:skip("the volume gave .git no 8.3 short name GIT~1 (8.3 generation off)")
    end
    return lib.win_hook_spellings(t, function() return { short .. "/hooks/pre-commit" } end)
  end,
}
