-- Windows: Win32 path parsing strips trailing dots and spaces from each
-- name, so .git\hooks.\pre-commit and .git\hooks \pre-commit open
-- .git\hooks\pre-commit.  A policy comparing spellings may miss both.
local lib = require "sandproof.lib"

local function SPELL(hooks) return { hooks .. "./pre-commit", hooks .. " /pre-commit", hooks .. ". ./pre-commit" } end

return scenario {
  id = "meta.win_hooks_trailing",
  clauses = { "META-1" },
  claim = "a hook cannot be planted in .git\\hooks through trailing dots or spaces (hooks.\\, hooks \\)",
  expect = { linux = { unsupported = "windows only: Win32 strips trailing dots and spaces from a path's names" },
             macos = { unsupported = "windows only: Win32 strips trailing dots and spaces from a path's names" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.win_hook_spellings(t, SPELL)
  end,
}
