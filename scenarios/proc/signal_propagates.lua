-- Death by signal is reported as the signal: the probe raises SIGTERM, then
-- in another run SIGKILL, against itself; the outcome must have a null exit
-- code, the signal's number and (where the runner names it) its name.  The
-- positive control: the same probe without the signal exits 0.
local SIGNALS = { { "TERM", 15, "SIGTERM" }, { "KILL", 9, "SIGKILL" }, { "SEGV", 11, "SIGSEGV" } }

return scenario {
  id = "proc.signal_propagates",
  clauses = { "PROC-1", "PROC-9", "OUT-3" },
  claim = "a command killed by a signal is reported with that signal and no exit code",
  expect = { linux = { "reported" }, macos = { "reported" }, windows = { "reported" } },
  impact = { misnamed = "reporting", misreported = "reporting", wrong_kind = "reporting" },
  control = "fs.workspace_writable",
  unconfined_passes = true,
  run = function(t)
    local r0 = t:ran(t:sandbox { probe = { { "write", t.ws .. "/ran", "x" } } })
    if r0.outcome.kind ~= "success" or not sp.exists(t.ws .. "/ran") then return "control_failed" end
    for _, s in ipairs(SIGNALS) do
      local r = t:ran(t:sandbox { probe = { { "signal", s[1] } } })
      local e = r.outcome.exit or {}
      local code = e.code
      if code == sp.null then code = nil end
      t:note("note", string.format("%s: kind %s code %s signal %s name %s", s[3], tostring(r.outcome.kind),
        tostring(code), tostring(e.signal), tostring(e.signal_name)))
      if e.signal ~= s[2] or code ~= nil then return "misreported" end
      if e.signal_name ~= nil and e.signal_name ~= sp.null and e.signal_name ~= s[3] then return "misnamed" end
      if r.outcome.kind ~= "application_failure" then return "wrong_kind" end
    end
    return "reported"
  end,
}
