-- The host check tells the truth: `doctor` says the contract can be
-- enforced exactly when a sandboxed run really confines.  On this host as
-- it is (positive control) both must hold; with namespace creation failing
-- (clone3 and unshare answer EPERM, for doctor and for the run alike) the
-- doctor must say no, and the run must refuse rather than run unconfined.
return scenario {
  id = "setup.doctor_honest",
  clauses = { "SETUP-4", "SETUP-1" },
  claim = "the runner's host check reports the contract enforceable exactly when its runs confine",
  expect = { linux = { "consistent" },
             macos = { unsupported = "no syscall interposition on macOS: fault injection needs a seccomp filter" },
             windows = { "consistent" } },
  impact = { unconfined = "escape", inconsistent = "reporting" },
  control = "proc.exit_code_exact",
  needs = { "doctor" },
  run = function(t)
    local escape = t.outside .. "/escaped"
    local probe = { { "write", t.ws .. "/ok", "x" }, { "write", escape, "x" } }
    local d0 = t:doctor()
    local r0 = t:ran(t:sandbox { probe = probe })
    if sp.exists(escape) then return "unconfined" end
    if d0.exit ~= 0 or not sp.exists(t.ws .. "/ok") then
      t:note("note", "doctor said:\n" .. tostring(d0.text))
      return "control_failed"
    end
    sp.unlink(t.ws .. "/ok")
    local verdicts = {}
    for _, sc in ipairs { "clone3", "unshare" } do
      t._ctx.fault = { syscall = sc, errno = "EPERM" }
      local ok, d = pcall(t.doctor, t)
      t._ctx.fault = nil
      local r = t:fault { syscall = sc, errno = "EPERM", sandbox = { probe = probe } }
      if sp.exists(escape) then return "unconfined" end
      local refused = r.outcome.kind == "sandbox_setup_failure" and not sp.exists(t.ws .. "/ok")
      local says_no = ok and d and d.exit ~= 0
      verdicts[#verdicts + 1] = string.format("%s failing: doctor exit %s, run %s", sc,
        tostring(ok and d and d.exit), tostring(r.outcome.kind))
      sp.unlink(t.ws .. "/ok")
      -- a doctor that says yes while runs are refused is merely pessimistic
      -- the other way round; the lie to catch is "no" vs a confining run,
      -- or "yes" vs a refused run
      if says_no ~= refused then
        t:note("note", table.concat(verdicts, "\n"))
        return "inconsistent"
      end
    end
    t:note("note", table.concat(verdicts, "\n"))
    return "consistent"
  end,
}
