-- Windows: the user's clipboard belongs to their window station.  The
-- command runs on a window station and desktop of the run's own, in a job
-- with JOB_OBJECT_UILIMIT_READCLIPBOARD and _WRITECLIPBOARD (PRIV-5), so
-- neither OpenClipboard+SetClipboardData nor GetClipboardData may succeed:
-- each must fail with ERROR_ACCESS_DENIED (the probe's EACCES, denied).
-- Positive control in the same run: a write in the workspace lands on the
-- host.  The oracle is the probe's typed result: the harness has no primitive
-- reading the host's clipboard yet (said in platforms/windows/README.md).
return scenario {
  id = "priv.win_ui_clipboard",
  clauses = { "PRIV-5" },
  claim = "the command can neither write nor read the clipboard (the job's clipboard restrictions, on a window station of its own)",
  expect = { linux = { unsupported = "windows only: the clipboard of a window station and a job's UI restrictions have no POSIX counterpart" },
             macos = { unsupported = "windows only: the clipboard of a window station and a job's UI restrictions have no POSIX counterpart (the pasteboard is not in the contract yet)" },
             windows = { "denied" } },
  impact = { written = "escape", read = "exposure", ["errno_*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local f = t.ws .. "/ui_control"
    local r = t:ran(t:sandbox { probe = {
      { "write", f, "control" },
      { "clipboard_write", "sandproof-clipboard-marker", as = "cw" },
      { "clipboard_read", as = "cr" },
    } })
    if sp.read(f) ~= "control" then return "control_failed" end
    local cw, cr = r.op.cw, r.op.cr
    if not (cw and cr) then return "error" end
    t:note("note", string.format("clipboard_write ok=%s errno=%s step=%s; clipboard_read ok=%s errno=%s step=%s",
      tostring(cw.ok), tostring(cw.errno), tostring(cw.step), tostring(cr.ok), tostring(cr.errno), tostring(cr.step)))
    if cw.ok then return "written" end
    if cr.ok then return "read" end
    if cw.errno ~= "EACCES" then return "errno_" .. tostring(cw.errno) end
    if cr.errno ~= "EACCES" then return "errno_" .. tostring(cr.errno) end
    return "denied"
  end,
}
