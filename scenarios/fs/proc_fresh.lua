-- /proc is a fresh instance for the sandbox's pid namespace: the host's
-- processes (here the harness process running this scenario) are not
-- listed, while /proc itself works (positive control: /proc/self).
-- (Linux: procfs and pid namespaces; macOS and Windows have no /proc.)
return scenario {
  id = "fs.proc_fresh",
  clauses = { "FS-5", "PROC-9" },
  claim = "/proc in the sandbox does not show the host's processes",
  expect = { linux = { "private" },
             macos = { unsupported = "macOS has no /proc and no pid namespace" },
             windows = { "not_applicable" } },
  impact = { host_visible = "exposure" },
  control = "proc.exit_code_exact",
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local host_pid = sp.getpid()
    local r = t:ran(t:sandbox {
      probe = { { "stat", "/proc/self", as = "self" }, { "read", "/proc/self/stat", as = "stat" },
                { "stat", "/proc/" .. host_pid, as = "host" } },
    })
    local self, st, host = r.op.self, r.op.stat, r.op.host
    if not (self and self.ok and st and st.ok) then return "control_failed" end
    t:note("note", string.format("/proc/%d (the harness): %s", host_pid,
      host and (host.ok and "visible" or tostring(host.errno)) or "missing"))
    if host and host.ok then return "host_visible" end
    return "private"
  end,
}
