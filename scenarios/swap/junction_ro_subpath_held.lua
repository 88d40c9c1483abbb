-- Windows hold sweep, bait-and-switch: a read-only subpath of the write
-- root is a junction to a directory of the scenario's own (inside the
-- workspace); at each open of it by the runner that breaks the oplock
-- (every k), the junction is retargeted outside the policy while the open
-- waits.  The read-only content must never change and nothing may land
-- outside.  A runner that refuses a junction as a read-only subpath passes
-- as "refused".
local lib = require "sandproof.lib"

return scenario {
  id = "swap.junction_ro_subpath_held",
  clauses = { "SWAP-1", "SWAP-2", "FS-2" },
  claim = "a read-only subpath that is a junction retargeted outside at any open of it by the runner never becomes writable and never redirects a write outside",
  expect = { linux = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on Linux (swap.ro_subpath_held is its Linux form)" },
             macos = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on macOS" },
             windows = { "confined", "refused" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local real, ro = t.ws .. "/ro_real", t.ws .. "/ro"
    assert(sp.mkdir(real))
    assert(sp.write(real .. "/keep", "keep\n"))
    local out_before = lib.snapshot(t.outside)
    local function spec()
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = lib.array { { root = t.ws, read_only_subpaths = lib.array { ro } } }
      return { profile = p, probe = { { "write", t.ws .. "/ok", "ok" },
        { "write", ro .. "/f", "x" }, { "append", ro .. "/keep", "pwned\n" } } }
    end
    return lib.junction_sweep(t, { path = ro, real = real, spec = spec,
      control = function() return sp.read(t.ws .. "/ok") == "ok" end,
      changed = function()
        if sp.read(real .. "/keep") ~= "keep\n" or sp.exists(real .. "/f") then return "read-only subpath written" end
        if lib.snapshot(t.outside) ~= out_before then return "outside: " .. lib.snapshot_diff(out_before, lib.snapshot(t.outside)) end
      end,
      reset = function()
        sp.unlink(t.ws .. "/ok") sp.unlink(real .. "/f") sp.unlink(t.outside .. "/f")
        assert(sp.write(real .. "/keep", "keep\n"))
        if sp.read(t.outside .. "/keep") then sp.unlink(t.outside .. "/keep") end
      end })
  end,
}
