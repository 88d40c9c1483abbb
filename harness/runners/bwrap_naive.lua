-- runners/bwrap_naive.lua - bubblewrap driven naively: runners/bwrap.lua
-- with its careful flags left out (no --new-session, no --disable-userns or
-- --cap-drop, no protected metadata: the workspace bound writable and
-- nothing pinned inside it).  A deliberately weak peer for `sandproof
-- explore` to find violations in (docs/EXPLORE.md); never a recommendation.
local bwrap = require "bwrap"

local M = { name = "bwrap_naive" }
for k, v in pairs(bwrap) do if M[k] == nil then M[k] = v end end
M.sandbox = bwrap.sandbox_of(true)

function M.version() return bwrap.version() .. " (naive flags)" end

return M
