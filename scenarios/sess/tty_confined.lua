-- SESS-2 with tty: the command's stdin is a pseudo-terminal (positive
-- control: it is a tty), which is not its controlling terminal nor any of
-- the host's (/dev/tty cannot be opened: ENXIO), and TIOCSTI on it is
-- refused (EPERM, PRIV-2).  The probe's result is read from the session's
-- output (the pty turns its newlines into CR LF).
return scenario {
  id = "sess.tty_confined",
  clauses = { "SESS-2", "PRIV-2" },
  claim = "a tty session's command has a pty as stdin but no controlling terminal, and cannot inject input with TIOCSTI",
  expect = { linux = { "confined" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { injected = "hardening", controlling_tty = "exposure", no_tty = "fidelity",
             no_result = "reporting", ["errno_*"] = "reporting", ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session {}
    local r = srv:start { tty = true, yield_ms = 10000, command = { "sh", "-c",
      'if [ -t 0 ]; then echo ISTTY; fi; "$0" tiocsti', t.paths.probe } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local c = r.exited and { last = r, output = "" } or srv:collect(r.session, { max_ms = 20000 })
    local out = (r.output or "") .. (c.output or "")
    local res
    for line in out:gmatch("[^\r\n]+") do
      local j = line:sub(1, 1) == "{" and sp.json_decode(line)
      if type(j) == "table" and j.op == "tiocsti" then res = j end
    end
    t:note("note", "session output: " .. out:sub(1, 600))
    if not res then return "no_result" end
    if res.ok or res.tty_ok or res.fd0_ok then return "injected" end
    if not out:find("ISTTY", 1, true) then return "no_tty" end
    if res.tty_errno ~= "ENXIO" then return "controlling_tty" end
    if res.fd0_errno ~= "EPERM" then return "errno_" .. tostring(res.fd0_errno) end
    return "confined"
  end,
}
