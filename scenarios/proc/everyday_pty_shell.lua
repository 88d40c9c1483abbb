-- An everyday command works under the sandbox (issue 33, section 2): a
-- shell under a pseudo-terminal the command makes itself (python3's
-- pty.fork: openpty, the new terminal as the child's controlling one)
-- sees a terminal on its stdin and says so; the parent writes what it
-- read into the workspace.  The host oracle: the file holds "tty-ok".  On
-- macOS this needs /dev/ptmx and the pty's own terminal (the pty
-- extension); no other terminal of the host.  Reads unrestricted, then
-- restricted (sandproof.everyday).
local everyday = require "sandproof.everyday"

return scenario {
  id = "proc.everyday_pty_shell",
  clauses = { "FS-5" },
  claim = "a shell runs under a pseudo-terminal the command opens, with reads unrestricted and restricted",
  expect = { linux = { "works", "works_reads_refused" }, macos = { "works" },
             windows = { unsupported = "pseudo-terminals are POSIX's (ConPTY is a Windows scenario still to write)" } },
  impact = { ["failed_default:*"] = "fidelity", ["failed_restricted:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local out = t.ws .. "/pty"
    return everyday.run(t, {
      tool = "python3",
      command = { "python3", "-c", table.concat({
        "import os, pty, sys",
        "pid, fd = pty.fork()",
        "if pid == 0:",
        "    os.execv('/bin/sh', ['sh', '-c', 'test -t 0 && echo tty-ok'])",
        "data = b''",
        "while True:",
        "    try: chunk = os.read(fd, 1024)",
        "    except OSError: break",
        "    if not chunk: break",
        "    data += chunk",
        "os.waitpid(pid, 0)",
        "open(sys.argv[1], 'wb').write(data)" }, "\n"), out },
      check = function() return (sp.read(out) or ""):find("tty-ok", 1, true) ~= nil end,
      reset = function() sp.unlink(out) end,
    })
  end,
}
