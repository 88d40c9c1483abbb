-- An exec failure is told apart from the command's own exit status.  A
-- command that exits 127 or 126 by itself is an application_failure with
-- that code; a command that does not exist is executable_not_found
-- (exec_error ENOENT); a file without execute permission is an
-- application_failure with exec_error EACCES (and never runs).  The
-- positive control: the same file made executable runs and leaves a mark.
return scenario {
  id = "proc.exit_127_not_notfound",
  clauses = { "PROC-6", "OUT-2", "OUT-6" },
  claim = "a command exiting 127 by itself is never reported as not found, and a real exec failure is reported with its errno",
  expect = { linux = { "distinguished" }, macos = { "distinguished" }, windows = { unsupported = "it runs POSIX shell commands and a #!/bin/sh script without the execute bit (EACCES), none of which native Windows has" } },
  impact = { ran_unexecutable = "fidelity", eacces_misreported = "reporting", not_found_misreported = "reporting", own_126_misreported = "reporting", own_127_misreported = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local script = t.ws .. "/tool.sh"
    assert(sp.write(script, "#!/bin/sh\necho ran > " .. t.ws .. "/tool-ran\n", 420)) -- 0644
    local ev = {}
    local function run(command)
      local r = t:sandbox { command = command }
      local o = r.outcome
      local e = o.exec_error
      local code = type(o.exit) == "table" and o.exit.code or nil
      ev[#ev + 1] = string.format("%s: kind %s code %s exec_error %s", command[#command], tostring(o.kind),
        code == sp.null and "null" or tostring(code), type(e) == "table" and sp.json_encode(e) or tostring(e))
      return o
    end
    local function errno_of(o)
      local e = o.exec_error
      if type(e) == "table" then return e.errno end
      return e
    end
    local o127 = run { "sh", "-c", "exit 127" }
    local o126 = run { "sh", "-c", "exit 126" }
    local onf = run { t.ws .. "/no-such-tool" }
    local onx = run { script }
    local ran_unexecutable = sp.exists(t.ws .. "/tool-ran")
    assert(sp.chmod(script, 493)) -- 0755
    local ook = run { script }
    t:note("note", table.concat(ev, "\n"))
    if ook.kind ~= "success" or not sp.exists(t.ws .. "/tool-ran") then return "control_failed" end
    if ran_unexecutable then return "ran_unexecutable" end
    if o127.kind ~= "application_failure" or (o127.exit and o127.exit.code) ~= 127 then return "own_127_misreported" end
    if o126.kind ~= "application_failure" or (o126.exit and o126.exit.code) ~= 126 then return "own_126_misreported" end
    if onf.kind ~= "executable_not_found" or errno_of(onf) ~= "ENOENT" then return "not_found_misreported" end
    if onx.kind ~= "application_failure" or errno_of(onx) ~= "EACCES" then return "eacces_misreported" end
    return "distinguished"
  end,
}
