-- sandproof.encoded - values the runner wrote losslessly as text or base64
-- (docs/CONTRACT.md OUT-7 for streams, OUT-8 for change paths): a field
-- `k` beside `k .. "_encoding"`, "utf-8" (a JSON string) or "base64".
local sp = require "sp"

local M = {}

-- Replace tbl[k] by its bytes when tbl[k .. "_encoding"] is "base64".
-- nil, or a message when the base64 does not decode.
function M.decode(tbl, k)
  if tbl[k .. "_encoding"] == "base64" and type(tbl[k]) == "string" then
    local bytes, err = sp.base64_decode(tbl[k])
    if not bytes then return k .. ": " .. tostring(err) end
    tbl[k] = bytes
  end
  return nil
end

-- Every entry of an outcome's `changes` (OUT-8) with its path as bytes.
-- nil, or a message naming the first entry that does not decode.
function M.decode_changes(outcome)
  local ch = type(outcome) == "table" and outcome.changes
  if type(ch) ~= "table" or type(ch.entries) ~= "table" then return nil end
  for i, e in ipairs(ch.entries) do
    local err = type(e) == "table" and M.decode(e, "path")
    if err then return string.format("changes.entries[%d].%s", i, err) end
  end
  return nil
end

return M
