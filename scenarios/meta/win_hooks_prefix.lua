-- Windows: the same file under other Win32 spellings: \\?\C:\...
-- (no normalisation), \\.\C:\... (the device namespace), and
-- \\localhost\C$\... (UNC through the administrative share; an
-- unelevated caller may be refused there by the share, which is denied
-- all the same).  A policy matching the DOS spelling may miss them.
local lib = require "sandproof.lib"

local function back(p) return (p:gsub("/", "\\")) end
-- C:\x through the drive's administrative share C$; a path with no drive
-- (the POSIX stand-in of harness/tests/test_win_spellings.sh) through the
-- share root$ that stand-in's model gives the root
local function unc(b)
  local drive, rest = b:match("^(%a):(\\.*)$")
  return "\\\\localhost\\" .. (drive and (drive .. "$" .. rest) or ("root$" .. b))
end
local function SPELL(hooks)
  local b = back(hooks .. "/pre-commit")
  return { "\\\\?\\" .. b, "\\\\.\\" .. b, unc(b) }
end

return scenario {
  id = "meta.win_hooks_prefix",
  clauses = { "META-1" },
  claim = "a hook cannot be planted in .git\\hooks through a \\\\?\\ or UNC spelling of its path",
  expect = { linux = { unsupported = "windows only: \\\\?\\ and UNC paths are Win32 spellings" },
             macos = { unsupported = "windows only: \\\\?\\ and UNC paths are Win32 spellings" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.win_hook_spellings(t, SPELL)
  end,
}
