-- Fault injection: the runner under test is started with namespace
-- creation failing (unshare(2), then clone3(2), each answering EPERM).
-- It must refuse; it must never run the command without its namespaces.
-- The oracle is the host: a write outside the workspace must not land.
return scenario {
  id = "setup.fail_closed_unshare",
  clauses = { "SETUP-1", "SETUP-3" },
  claim = "when namespaces cannot be created the runner refuses and the command does not run unconfined",
  expect = { linux = { "refused" },
             macos = { unsupported = "no syscall interposition on macOS: fault injection needs a seccomp filter (and unshare is Linux's)" },
             windows = { "refused" } },
  impact = { unconfined = "escape", not_exercised = "fidelity" },
  control = "proc.exit_code_exact",
  run = function(t)
    local ok_file, escape = t.ws .. "/ran", t.outside .. "/escaped"
    local probe = { { "write", ok_file, "x" }, { "write", escape, "x" } }
    -- positive control: without a fault the command runs (and is confined)
    local r0 = t:ran(t:sandbox { probe = probe })
    if not sp.exists(ok_file) then return "control_failed" end
    if sp.exists(escape) then return "unconfined" end
    sp.unlink(ok_file)
    local refused = 0
    for _, sc in ipairs { "unshare", "clone3" } do
      local r = t:fault { syscall = sc, errno = "EPERM", sandbox = { probe = probe } }
      local o = r.outcome
      t:note("note", string.format("%s failing: kind %s step %s", sc, tostring(o.kind),
        tostring(o.setup_error and o.setup_error.step)))
      if sp.exists(escape) then return "unconfined" end
      if o.kind == "sandbox_setup_failure" and not sp.exists(ok_file) then
        refused = refused + 1
      elseif sp.exists(ok_file) then
        sp.unlink(ok_file) -- ran, still confined: this runner does not use that call
      end
    end
    return refused > 0 and "refused" or "not_exercised"
  end,
}
