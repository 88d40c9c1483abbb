-- Windows hold sweep, bait-and-switch on the protected .git\hooks: the
-- workspace's hooks directory is a junction to a directory of the
-- scenario's own (its content: one sample hook); at each open of it by the
-- runner that breaks the oplock (every k), it is retargeted to a directory
-- outside the policy while the open waits.  No hook may be planted in
-- either, and nothing may land outside.  A runner that refuses a junction
-- at a protected path passes as "refused".
local lib = require "sandproof.lib"

return scenario {
  id = "swap.junction_hooks_held",
  clauses = { "SWAP-1", "META-1" },
  claim = "a .git\\hooks that is a junction retargeted outside at any open of it by the runner never lets a hook be planted, there or outside",
  expect = { linux = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on Linux (swap.protected_held is its Linux form)" },
             macos = { unsupported = "windows only: NTFS junctions and oplock holds do not exist on macOS" },
             windows = { "confined", "refused" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local hooks, real = t.ws .. "/.git/hooks", t.ws .. "/hooks_real"
    assert(sp.mkdir(real))
    assert(sp.write(real .. "/post-checkout", "#!/bin/sh\nexit 0\n"))
    sp.rmtree(hooks)
    local out_before = lib.snapshot(t.outside)
    local function spec()
      return { probe = { { "write", t.ws .. "/ok", "ok" },
        { "write", hooks .. "/pre-commit", "#!/bin/sh\necho pwned\n" },
        { "append", hooks .. "/post-checkout", "echo pwned\n" } } }
    end
    return lib.junction_sweep(t, { path = hooks, real = real, spec = spec,
      control = function() return sp.read(t.ws .. "/ok") == "ok" end,
      changed = function()
        if sp.exists(real .. "/pre-commit") or sp.read(real .. "/post-checkout") ~= "#!/bin/sh\nexit 0\n" then
          return "hook planted"
        end
        if lib.snapshot(t.outside) ~= out_before then return "outside: " .. lib.snapshot_diff(out_before, lib.snapshot(t.outside)) end
      end,
      reset = function()
        sp.unlink(t.ws .. "/ok") sp.unlink(real .. "/pre-commit") sp.unlink(t.outside .. "/pre-commit")
        assert(sp.write(real .. "/post-checkout", "#!/bin/sh\nexit 0\n"))
        if sp.exists(t.outside .. "/post-checkout") then sp.unlink(t.outside .. "/post-checkout") end
      end })
  end,
}
