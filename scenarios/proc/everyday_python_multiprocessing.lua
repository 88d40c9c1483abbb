-- An everyday command works under the sandbox (issue 33, section 2):
-- Python's multiprocessing runs a pool of two workers (SemLock: a POSIX
-- semaphore; on macOS the spawn start method, which runs python again) and
-- writes their sum into the workspace.  The host oracle: the file says 6.
-- Reads unrestricted, then restricted (sandproof.everyday).
local everyday = require "sandproof.everyday"

return scenario {
  id = "proc.everyday_python_multiprocessing",
  clauses = { "FS-5" },
  claim = "python3's multiprocessing pool works, with reads unrestricted and restricted",
  expect = { linux = { "works", "works_reads_refused" }, macos = { "works" },
             windows = { unsupported = "the command is POSIX python3 in a POSIX shell's PATH; a Windows form is still to write" } },
  impact = { ["failed_default:*"] = "fidelity", ["failed_restricted:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local out = t.ws .. "/mp-sum"
    return everyday.run(t, {
      tool = "python3",
      command = { "python3", "-c", table.concat({
        "import multiprocessing as m, sys",
        "if __name__ == '__main__':",
        "    with m.Pool(2) as p: s = sum(p.map(abs, [-1, -2, -3]))",
        "    open(sys.argv[1], 'w').write(str(s))" }, "\n"), out },
      check = function() return sp.read(out) == "6" end,
      reset = function() sp.unlink(out) end,
    })
  end,
}
