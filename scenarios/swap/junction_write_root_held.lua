-- Windows hold sweep, bait-and-switch: the write root is a junction to a
-- directory of the scenario's own; the runner is held by an oplock at
-- each open of the write root that breaks it (every k in turn), and while
-- that open waits the junction is retargeted to a directory outside the
-- policy.  Whatever the runner resolved before or after, the command's
-- write must never land outside (lib.junction_sweep).  A runner that
-- refuses a junction as a write root passes as "refused".  Power: the
-- windows are the opens observed (breaks of the oplock: a lower bound of
-- the opens made, docs/SCENARIOS.md).
local lib = require "sandproof.lib"

return scenario {
  id = "swap.junction_write_root_held",
  clauses = { "SWAP-1", "SWAP-2", "SWAP-3" },
  claim = "a write root that is a junction retargeted outside at any open of it by the runner never redirects a write outside the policy",
  expect = { linux = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on Linux (swap.write_root_held is its Linux form)" },
             macos = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on macOS" },
             windows = { "confined", "refused" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local real, root = t.tmp .. "/real", t.tmp .. "/root"
    assert(sp.mkdir(real))
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = lib.array { { root = root } }
      return { profile = p, cwd = t.tmp, probe = { { "write", root .. "/f", "x" } } }
    end
    return lib.junction_sweep(t, { path = root, real = real, spec = spec,
      control = function() return sp.read(real .. "/f") == "x" end,
      changed = function() return sp.exists(t.outside .. "/f") and "outside/f written" or nil end,
      reset = function() sp.unlink(t.outside .. "/f") sp.unlink(real .. "/f") end })
  end,
}
