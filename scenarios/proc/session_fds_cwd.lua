-- The command runs in its own session and process group, in the requested
-- working directory, with only file descriptors 0-2 open.  Its first
-- process reports /proc/self/stat (pid, session, process group), its
-- working directory, and first of all lists its own descriptors from a
-- child (ls of /proc/<shell>/fd, straight to stdout: no redirection or
-- command substitution of the shell's own adds one).
return scenario {
  id = "proc.session_fds_cwd",
  clauses = { "PROC-2", "PRIV-4" },
  claim = "the command leads its own session and process group, starts in the requested cwd, and has only fds 0-2",
  expect = { linux = { "isolated" },
             macos = { unsupported = "reads /proc/self/stat and /proc/PID/fd: macOS has no /proc" },
             windows = { unsupported = "the command is a POSIX shell script reading /proc (sh, ls), which native Windows lacks" } },
  impact = { ["fd_leak:*"] = "hardening", shares_session = "hardening", wrong_cwd = "fidelity" },
  control = "proc.exit_code_exact",
  unconfined_passes = true,
  run = function(t)
    local sub = t.ws .. "/sub dir"
    assert(sp.mkdir(sub))
    local r = t:sandbox { cwd = sub, command = { "sh", "-c",
      'echo fds; ls /proc/$$/fd; echo end; ' ..
      'read -r pid comm state ppid pgrp sid rest < /proc/self/stat; echo "stat $pid $ppid $pgrp $sid"; ' ..
      'echo "cwd $(pwd -P)"' } }
    local out = r.stdout or ""
    local fds = out:match("fds\n(.-)end\n")
    t:note("note", "kind " .. tostring(r.outcome.kind) .. "\n" .. out)
    local pid, ppid, pgrp, sid = out:match("stat (%d+) (%d+) (%d+) (%d+)")
    local cwd = out:match("cwd ([^\n]*)")
    if r.outcome.kind ~= "success" or not (pid and cwd and fds) then return "control_failed" end
    if cwd ~= sub then return "wrong_cwd" end
    if pgrp ~= pid or sid ~= pid then return "shares_session" end
    local list = {}
    for fd in fds:gmatch("%d+") do list[#list + 1] = tonumber(fd) end
    table.sort(list)
    if table.concat(list, ",") ~= "0,1,2" then return "fd_leak:" .. table.concat(list, ",") end
    return "isolated"
  end,
}
