-- Found by `sandproof explore --runner ref --seed 1` (program seed 30588928595403):
-- escape: changed ws/d/f
-- Shrunk to 1 op(s) and 1 policy entry.  Replays through the same host
-- oracle that found it (harness/lua/sandproof/explore/oracle.lua).
-- Kept in the catalogue (clauses narrowed to the one it broke): ref let the
-- rename carry the read-only bind of ws/d/f away until FS-2 pinned the
-- ancestors of read-only paths (5d242f8); fs.ro_parent_renamed is its
-- hand-written form for every OS.
local oracle = require "sandproof.explore.oracle"
local PROGRAM = { seed = 30588928595403, policy = { { kind = "deny_write", name = "ws/d/f" } }, ops = { { "rename", "ws/d", "ws/b" } } }
return scenario {
  id = "fs.found_deny_write_parent_renamed",
  clauses = { "FS-2" },
  claim = "the generated program found by explore changes nothing the contract protects, reads no hidden content and reaches no listener",
  expect = { linux = { "confined" },
             macos = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" },
             windows = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" } },
  impact = { ["escape*"] = "escape", ["hardening*"] = "hardening", ["reporting*"] = "reporting", ["residue*"] = "residue" },
  control = "fs.workspace_writable",
  run = function(t) return (oracle.run(t, PROGRAM)) end,
}
