-- A limit the request states but the runner cannot enforce refuses the
-- run (fail closed), with nothing run: tmp_bytes where /tmp is the runtime
-- root's tmp/ (a host directory: a workspace outside /tmp, RT-3) or the
-- host's own (an unrestricted filesystem), and cpu_seconds when setting it
-- fails (prlimit64 of RLIMIT_CPU, resource 0, answering EPERM under a
-- fault; other resources stay settable, as a sanitized runner's start-up
-- needs).  The oracle is a marker the command would write into the
-- workspace.  Positive control: the same requests without the limit (and
-- without the fault) run.
local MIB = 1024 * 1024

return scenario {
  id = "lim.refused_unenforceable",
  clauses = { "LIM-2", "LIM-4", "SETUP-1", "SETUP-3" },
  claim = "a stated limit that cannot be enforced refuses the run and nothing runs",
  expect = { linux = { "refused" },
             macos = { unsupported = "no syscall interposition on macOS: fault injection needs a seccomp filter" },
             windows = { "refused" } },
  impact = { ["ran_anyway:*"] = "hardening", ["refused_at:*"] = "reporting", sandbox_setup_failure = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    if not t.vtmp then t:skip("/var/tmp is unusable: no workspace outside /tmp") end
    local ws = t.vtmp .. "/ws"
    assert(sp.mkdir(ws))
    local marker = ws .. "/ran"
    local function profile(case, limits)
      local p = t.profiles.workspace_write()
      p.filesystem.write_roots = setmetatable({ { root = ws } }, { __jsonarray = true })
      if case == "runtime" then p.runtime = { parent = t.vtmp .. "/rt" } end
      if case == "unrestricted" then p.filesystem = { kind = "unrestricted" } end
      p.limits = limits
      return p
    end
    local function attempt(case, limits, fault)
      local spec = { profile = profile(case, limits), cwd = ws, probe = { { "write", marker, "x" } } }
      local r = fault and t:fault { syscall = fault, errno = "EPERM", arg1 = 0, sandbox = spec }
                      or t:sandbox(spec)
      local ran = sp.exists(marker)
      sp.unlink(marker)
      local o = r.outcome
      t:note("note", string.format("%s %s%s: kind %s step %s, command %s", case, sp.json_encode(limits or {}),
        fault and (" under a " .. fault .. "(RLIMIT_CPU) fault") or "", tostring(o.kind),
        tostring(o.setup_error and o.setup_error.step), ran and "ran" or "did not run"))
      return ran, o.kind == "sandbox_setup_failure" and o.setup_error.step or nil
    end
    if not attempt("workspace", nil) then return "control_failed:workspace" end
    local ran, step = attempt("workspace", { cpu_seconds = 600 }, "prlimit64")
    if ran then return "ran_anyway:prlimit64" end
    if step ~= "limits:cpu_seconds" then return "refused_at:" .. tostring(step) end
    -- the runtime root last: runners without runtime roots stop there
    for _, case in ipairs { "unrestricted", "runtime" } do
      if not attempt(case, nil) then return "control_failed:" .. case end
      local ran, step = attempt(case, { tmp_bytes = MIB })
      if ran then return "ran_anyway:" .. case end
      if step ~= "limits:tmp_bytes" then return "refused_at:" .. tostring(step) end
    end
    return "refused"
  end,
}
