-- With allow_temp, /tmp is writable and private: a file the command
-- writes there (a path inside this scenario's temp directory, which lies
-- under the host's /tmp) can be read back inside the sandbox (positive
-- control: temp really is writable) and never appears on the host.
return scenario {
  id = "fs.tmp_private",
  clauses = { "FS-4" },
  claim = "with allow_temp, /tmp is writable by the command and what it writes there never reaches the host's /tmp",
  expect = { linux = { "private" },
             macos = { unsupported = "Seatbelt cannot give /tmp a private view: on macOS allow_temp is a private TMPDIR under the runtime root" },
             windows = { "private" } },
  impact = { leaked = "escape", not_writable = "fidelity" },
  run = function(t)
    local f = t.tmp .. "/written-in-temp"
    local p = t.profiles.workspace_write()
    p.filesystem.allow_temp = true
    local r = t:ran(t:sandbox {
      profile = p,
      probe = { { "write", f, "temp-data", as = "write" }, { "read", f, as = "read" } },
    })
    local w, rd = r.op.write, r.op.read
    t:note("note", string.format("write %s, read back %s",
      w and (w.ok and "ok" or tostring(w.errno)) or "missing",
      rd and (rd.ok and tostring(rd.data) or tostring(rd.errno)) or "missing"))
    if sp.exists(f) then return "leaked" end
    if not (w and w.ok and rd and rd.ok and rd.data == "temp-data") then return "not_writable" end
    return "private"
  end,
}
