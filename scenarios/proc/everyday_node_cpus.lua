-- An everyday command works under the sandbox (issue 33, section 2): Node's
-- os.cpus() (on macOS: sysctls machdep.cpu.brand_string, hw.model,
-- hw.cpufrequency and the host's processor info; on Linux /proc) gives at
-- least one CPU, written into the workspace.  The host oracle: the count.
-- Reads unrestricted, then restricted (sandproof.everyday).
local everyday = require "sandproof.everyday"

return scenario {
  id = "proc.everyday_node_cpus",
  clauses = { "FS-5" },
  claim = "node's os.cpus() works, with reads unrestricted and restricted",
  expect = { linux = { "works", "works_reads_refused" }, macos = { "works" },
             windows = { unsupported = "the command is node on a POSIX PATH; a Windows form is still to write" } },
  impact = { ["failed_default:*"] = "fidelity", ["failed_restricted:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local out = t.ws .. "/cpus"
    return everyday.run(t, {
      tool = "node",
      command = { "node", "-e", "const n = require('os').cpus().length; " ..
        "if (n > 0) require('fs').writeFileSync(process.argv[1], String(n));", out },
      check = function() return (tonumber(sp.read(out) or "") or 0) >= 1 end,
      reset = function() sp.unlink(out) end,
    })
  end,
}
