-- sandproof.peer - what the peer adapters (harness/runners/{bwrap,firejail,
-- codex,srt}.lua) share: the contract's defaults, signal numbers, and small
-- path and text helpers.
local sp = require "sp"

local M = {}

M.SYS_PATH = "/usr/local/bin:/usr/bin:/bin"
-- the contract's default protected_metadata_names (docs/CONTRACT.md, REQ)
M.DEFAULT_PROTECTED = { ".git/hooks", ".git/config", ".agents", ".zero" }
-- the signals a harness may send the runner (cancel, dies-with-runner)
M.SIGNALS = { SIGHUP = 1, SIGINT = 2, SIGKILL = 9, SIGTERM = 15 }

-- A table that encodes as a JSON array even when empty.
function M.array(t) return setmetatable(t or {}, { __jsonarray = true }) end

local function depth(p)
  local _, n = p:gsub("/", "")
  return n
end

-- Paths sorted parents first, so a later mount never hides an earlier one
-- it should sit on top of.
function M.by_depth(list)
  table.sort(list, function(a, b)
    if depth(a) ~= depth(b) then return depth(a) < depth(b) end
    return a < b
  end)
  return list
end

-- An executable by name: in `first` (a directory) if given, then on the
-- harness's PATH.
function M.find(name, first)
  if first and sp.exists(first .. "/" .. name) then return first .. "/" .. name end
  for d in (os.getenv("PATH") or M.SYS_PATH):gmatch("[^:]+") do
    if sp.exists(d .. "/" .. name) then return d .. "/" .. name end
  end
  return nil
end

-- The last non-empty line of s (a peer's own error is its last stderr line).
function M.last_line(s)
  local last
  for l in (s or ""):gmatch("[^\n]+") do last = l end
  return last
end

return M
