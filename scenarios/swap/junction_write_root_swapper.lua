-- Windows swapper: the write root is a junction to a directory of the
-- scenario's own, and the junction swapper (t:swapper on Windows) flips it
-- between that directory and one outside the policy, one
-- FSCTL_SET_REPARSE_POINT at a time, from before the runner starts to after
-- the run (Windows has no hold on the command's first instruction to start
-- it from: the race covers the runner's setup and the command's appends
-- alike).  Whatever target the runner resolved, nothing may land outside;
-- a runner that refuses a junction as a write root passes as "refused".
-- Power: the flips made during the run (at least 100).  The Linux form
-- (renameat2 exchanges of the root and a symlink) is swap.write_root_swapper.
local lib = require "sandproof.lib"

local WRITES = 60

return scenario {
  id = "swap.junction_write_root_swapper",
  clauses = { "SWAP-3", "FS-1" },
  claim = "a write root that is a junction flipped to outside and back continuously while the runner starts and the command writes never redirects a write outside",
  expect = { linux = { unsupported = "windows only: NTFS junctions do not exist on Linux (swap.write_root_swapper is its Linux form)" },
             macos = { unsupported = "windows only: NTFS junctions do not exist on macOS" },
             windows = { "confined", "refused" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: the swapper's flips during the command (its stated power) are counted in wall time, which other pairs would take from it",
  run = function(t)
    local real, root = t.tmp .. "/real", t.tmp .. "/root"
    assert(sp.mkdir(real))
    t:junction(root, real)
    local before = lib.snapshot(t.outside)
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = lib.array { { root = root, protected_metadata_names = lib.array {} } }
    local ops = {}
    for _ = 1, WRITES do
      ops[#ops + 1] = { "append", root .. "/f", "x" }
      ops[#ops + 1] = { "sleep", 2 }
    end
    -- positive control, and a runner that refuses the junction outright
    local r0 = t:sandbox { profile = p, cwd = t.tmp, probe = { { "write", root .. "/f", "x" } } }
    local kind = r0.outcome and r0.outcome.kind
    if kind == "sandbox_setup_failure" or kind == "request_refused" then
      t:note("note", "a write root that is a junction: refused (" .. tostring(kind) .. ")")
      return "refused"
    end
    t:ran(r0)
    if sp.read(real .. "/f") ~= "x" then
      t:note("note", "positive control failed: the write through the junction did not land in its target")
      return "control_failed"
    end
    sp.unlink(real .. "/f")
    local s = t:swapper(root, t.outside)
    local r = t:sandbox { profile = p, cwd = t.tmp, probe = ops }
    local flips, err = s:stop()
    if not flips then t:error("swapper: " .. tostring(err)) end
    t:set_power { attempts = 1, windows = flips, min = 100 }
    t:note("note", string.format("%d flips during the run; %d bytes in the junction's own target; outcome %s",
      flips, #(sp.read(real .. "/f") or ""), tostring(r.outcome.kind)))
    local now = lib.snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. lib.snapshot_diff(before, now))
      return "escaped"
    end
    kind = r.outcome and r.outcome.kind
    if kind == "sandbox_setup_failure" or kind == "request_refused" then return "refused" end
    return "confined"
  end,
}
