-- PRIV-1: no_new_privs is set on the sandboxed command, so no setuid or
-- file-capability binary can raise its privileges.  The prctl answering
-- at all is the positive control.
return scenario {
  id = "priv.no_new_privs",
  clauses = { "PRIV-1", "OUT-4" },
  claim = "the sandboxed command runs with no_new_privs set",
  expect = { linux = { "set" },
             macos = { unsupported = "PR_SET_NO_NEW_PRIVS is Linux's; setuid binaries under Seatbelt are not checked yet" },
             windows = { "set" } },
  impact = { unset = "hardening" },
  control = "proc.exit_code_exact",
  run = function(t)
    local r = t:ran(t:sandbox { probe = { { "no_new_privs", as = "nnp" } } })
    local c = r.op.nnp
    if not (c and c.ok and c.value ~= nil) then
      t:note("note", "positive control failed: PR_GET_NO_NEW_PRIVS did not answer (" ..
        tostring(c and c.errno) .. ")")
      return "control_failed"
    end
    t:note("note", "PR_GET_NO_NEW_PRIVS=" .. tostring(c.value))
    return c.value == 1 and "set" or "unset"
  end,
}
