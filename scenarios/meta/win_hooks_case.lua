-- Windows: NTFS matches names case-insensitively, so .GiT\Hooks is .git\hooks.
-- A policy comparing spellings byte for byte may miss it.
local lib = require "sandproof.lib"

local function SPELL(hooks) return { (hooks:gsub("/%.git/hooks$", "/.GiT/Hooks")) .. "/pre-commit" } end

return scenario {
  id = "meta.win_hooks_case",
  clauses = { "META-1" },
  claim = "a hook cannot be planted in .git\\hooks spelled in another case (.GiT\\Hooks)",
  expect = { linux = { unsupported = "windows only: NTFS names are case-insensitive (Linux and case-sensitive macOS volumes name another directory)" },
             macos = { unsupported = "windows only: NTFS names are case-insensitive (Linux and case-sensitive macOS volumes name another directory)" },
             windows = { "denied" } },
  impact = { written = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    return lib.win_hook_spellings(t, SPELL)
  end,
}
