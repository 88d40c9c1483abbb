-- open_files bounds the descriptors of each process: with open_files 64
-- the probe opens 40 (positive control), then up to 1000 more, which must
-- stop with EMFILE below 64.  Host-side oracle: while the probe sleeps (a
-- hold), the kernel's /proc/PID/limits of the probe says 64 open files.
return scenario {
  id = "lim.open_files",
  clauses = { "LIM-6" },
  claim = "open_files bounds each process's open descriptors: past it open fails with EMFILE",
  expect = { linux = { "bounded" },
             macos = { unsupported = "no syscall interposition on macOS: the oracle reads /proc/PID/limits during a seccomp hold, and macOS has neither" },
             windows = { unsupported = "the oracle reads /proc during a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { unbounded = "escape", not_the_limit = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local p = t.profiles.workspace_write()
    p.limits = { open_files = 64 }
    local limits
    local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1, comm = "sandproof-probe",
                       sandbox = { profile = p, probe = { { "openn", 40, as = "fits" }, { "openn", 1000, as = "many" },
                                                           { "sleep", 50 } } },
                       action = function(_, _, pid) limits = sp.read("/proc/" .. pid .. "/limits") end }
    t:ran(r)
    local a, b = r.op.fits, r.op.many
    local soft, hard = (limits or ""):match("Max open files%s+(%d+)%s+(%d+)")
    t:note("note", string.format("openn 40: %s; openn 1000: %s %s; host /proc/PID/limits: %s %s",
      a and tostring(a.opened) or "missing", b and tostring(b.opened) or "missing",
      b and tostring(b.errno) or "", tostring(soft), tostring(hard)))
    if not (a and a.ok) then return "control_failed" end
    if not b or b.ok or b.errno ~= "EMFILE" or b.opened >= 64 then return "unbounded" end
    if soft ~= "64" or hard ~= "64" then return "not_the_limit" end
    return "bounded"
  end,
}
