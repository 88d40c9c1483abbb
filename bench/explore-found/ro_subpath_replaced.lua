-- Found by `sandproof explore --runner ref --seed 1` (program seed 30588928595403):
-- escape: changed ws/d/f
-- The same with a read_only_subpaths entry instead of deny_write, by hand from 5880026e.lua, to 3 op(s) (the policy path then holds "planted") and 1 policy entry.  Replays through the same host
-- oracle that found it (harness/lua/sandproof/explore/oracle.lua).
local oracle = require "sandproof.explore.oracle"
local PROGRAM = { seed = 30588928595403, policy = { { kind = "read_only_subpath", name = "ws/d/f" } }, ops = { { "rename", "ws/d", "ws/b" }, { "mkdir", "ws/d" }, { "write", "ws/d/f", "planted" } } }
return scenario {
  id = "fs.found_ro_subpath_replaced",
  clauses = { "FS-1", "FS-2", "FS-3", "FS-4", "META-1", "META-3", "NET-1" },
  claim = "the generated program found by explore changes nothing the contract protects, reads no hidden content and reaches no listener",
  expect = { linux = { "confined" },
             macos = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" },
             windows = { unsupported = "explore's universe and oracle are Linux only so far (a lab, hidden /tmp)" } },
  impact = { ["escape*"] = "escape", ["exposure*"] = "exposure", ["residue*"] = "residue" },
  control = "fs.workspace_writable",
  run = function(t) return (oracle.run(t, PROGRAM)) end,
}
