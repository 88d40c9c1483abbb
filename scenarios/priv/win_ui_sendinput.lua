-- Windows: SendInput injects keystrokes into the input desktop, the user's.
-- The command runs on a desktop of the run's own (never the input desktop)
-- in a job with every UI restriction (PRIV-5): SendInput of one harmless
-- key-up must insert nothing and fail with ERROR_ACCESS_DENIED (the probe's
-- EACCES, denied).  SendInput reports nothing when UIPI drops the input, so
-- 0 inserted with another error is a reporting failure, not a pass.
-- Positive control in the same run: a write in the workspace lands on the
-- host.  No host-side observation of the user's input queue exists: the
-- oracle is the count SendInput returns and its error.
return scenario {
  id = "priv.win_ui_sendinput",
  clauses = { "PRIV-5" },
  claim = "the command cannot inject input into the user's desktop with SendInput",
  expect = { linux = { unsupported = "windows only: SendInput and a job's UI restrictions have no POSIX counterpart (TIOCSTI is priv.tiocsti)" },
             macos = { unsupported = "windows only: SendInput and a job's UI restrictions have no POSIX counterpart" },
             windows = { "denied" } },
  impact = { injected = "escape", ["errno_*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local f = t.ws .. "/ui_control"
    local r = t:ran(t:sandbox { probe = {
      { "write", f, "control" },
      { "sendinput", as = "si" },
    } })
    if sp.read(f) ~= "control" then return "control_failed" end
    local si = r.op.si
    if not si then return "error" end
    t:note("note", string.format("sendinput ok=%s inserted=%s errno=%s win32=%s",
      tostring(si.ok), tostring(si.inserted), tostring(si.errno), tostring(si.win32_error)))
    if si.ok or (tonumber(si.inserted) or 0) > 0 then return "injected" end
    if si.errno ~= "EACCES" then return "errno_" .. tostring(si.errno) end
    return "denied"
  end,
}
