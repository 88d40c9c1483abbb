-- runners/ref.lua - sandproof-ref, the reference runner, driven as a black
-- box through its documented CLI: `sandproof-ref run --request -` with the
-- contract request on stdin and the outcome JSON on stdout.  It is the
-- contract adapter (sandproof.contract) every `--runner contract:PATH` gets,
-- over the sandproof-ref found next to the harness (or SANDPROOF_REF), with
-- its capabilities declared here rather than asked of it, and no network
-- lab of the harness's around it: its own network namespace is what its
-- tests verify.
local sp = require "sp"
local contract = require "sandproof.contract"

-- the reference runner implements the whole contract
local M = contract.adapter {
  name = "ref",
  bin = function(paths) return paths and paths.ref end,
  capabilities = { gc = true, doctor = true, runtime_roots = true, raw_request = true, limits = true,
                   output_limit = true, block_unix_sockets = true, hold = true, fault = true,
                   sessions = true },
  lab = false,
}

local session = M.session
function M.session(t, o)
  -- built for the linux platform only (ref/serve_none.c refuses elsewhere)
  if sp.os ~= "linux" then
    return { unsupported = "unsupported on " .. sp.os .. ": sandproof-ref serve is built for the linux platform only" }
  end
  return session(t, o)
end

return M
