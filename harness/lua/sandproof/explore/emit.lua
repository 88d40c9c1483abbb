-- sandproof.explore.emit - a shrunk violating program as a ready scenario
-- file (docs/EXPLORE.md): DIR/found/<id>.lua, which
--   SANDPROOF_SCENARIOS=DIR sandproof run --runner R --filter 'fs.found_*'
-- replays as it is (the catalogue loader reads DIR/<any>/<file>.lua).  The
-- program is inlined as data; the oracle that judged it judges the replay.
local sp = require "sp"
local gen = require "sandproof.explore.gen"
local impact = require "sandproof.impact"

local M = {}

-- A stable id for prog: its text hashed (FNV-1a, 32 bits), so the same
-- shrunk program found twice is one file.
function M.id_of(prog)
  local h = 0x811C9DC5
  local text = gen.program_text { seed = 0, policy = prog.policy, ops = prog.ops, hold = prog.hold }
  for i = 1, #text do h = ((h ~ text:byte(i)) * 0x01000193) & 0xFFFFFFFF end
  return string.format("%08x", h)
end

local TEMPLATE = [[
-- Found by `sandproof explore --runner %s --seed %d` (program seed %d):
-- %s
-- Shrunk to %d op(s) and %d policy entr%s.%s
-- Replays through the same host oracle that found it
-- (harness/lua/sandproof/explore/oracle.lua).
local oracle = require "sandproof.explore.oracle"
local PROGRAM = %s
return scenario {
  id = "fs.found_%s",
  clauses = { "FS-1", "FS-2", "FS-3", "FS-4", "META-1", "META-3", "NET-1", "NET-5", "PRIV-2", "PRIV-3",
              "OUT-5", "PROC-5", "SWAP-3" },
  claim = "the generated program found by explore changes nothing the contract protects, reads no hidden content, reaches no listener, opens no forbidden socket, io_uring or process of the run, leaves no process behind, and is reported as it happened",
  expect = { linux = { "confined", "failed_closed" },
             macos = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" },
             windows = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" } },
  impact = %s,
  control = "fs.workspace_writable",
  run = function(t) return (oracle.run(t, PROGRAM)) end,
}
]]

-- impact.EXPLORE as Lua text, its classes in report order: the file says
-- how its outcomes are classed.
local function impact_text()
  local items = {}
  for _, c in ipairs(impact.classes_of(impact.EXPLORE)) do
    items[#items + 1] = string.format('["%s*"] = "%s"', c, c)
  end
  return "{ " .. table.concat(items, ", ") .. " }"
end

-- Writes the file; returns its path, or nil and why.
function M.write(dir, prog, info)
  local id = M.id_of(prog)
  local found = dir .. "/found"
  if not sp.exists(dir) then sp.mkdir(dir) end
  if not sp.exists(found) then
    local ok, err = sp.mkdir(found)
    if not ok then return nil, err end
  end
  local n, p = #prog.ops, #prog.policy
  local text = string.format(TEMPLATE, info.runner, info.seed, prog.seed,
    (info.outcome:gsub("\n", " ")):sub(1, 200), n, p, p == 1 and "y" or "ies",
    prog.hold and string.format("\n-- Held: at the runner's path call %d the workspace is exchanged with a\n" ..
      "-- symlink to the hidden outside (docs/EXPLORE.md, \"Holds\").", prog.hold.at) or "",
    gen.program_text(prog), id, impact_text())
  local path = found .. "/" .. id .. ".lua"
  local ok, err = sp.write(path, text)
  if not ok then return nil, err end
  return path, id
end

return M
