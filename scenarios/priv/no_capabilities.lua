-- PRIV-1: no capability survives into the sandbox, in any of the five sets
-- (inheritable, permitted, effective, bounding, ambient), also when the
-- runner is started by root.  The probe reads them from /proc/self/status;
-- that read succeeding is the positive control (a missing answer is not a
-- pass).  Unconfined, root holds every capability and any user keeps a
-- full bounding set.
return scenario {
  id = "priv.no_capabilities",
  clauses = { "PRIV-1", "OUT-4" },
  claim = "every capability set of the sandboxed command is empty, also when the caller is root",
  expect = { linux = { "none" },
             macos = { unsupported = "Linux capabilities (CapEff...) do not exist on macOS" },
             windows = { "none" } },
  impact = { ["held:*"] = "hardening" },
  control = "proc.exit_code_exact",
  run = function(t)
    local r = t:ran(t:sandbox { probe = { { "caps", as = "caps" } } })
    local c = r.op.caps
    if not (c and c.ok and c.eff) then
      t:note("note", "positive control failed: the capability sets could not be read (" ..
        tostring(c and c.errno) .. ")")
      return "control_failed"
    end
    local held = {}
    for _, k in ipairs { "inh", "prm", "eff", "bnd", "amb" } do
      t:note("note", string.format("%s=%s (%s)", k, tostring(c[k]), tostring(c.source)))
      if c[k] ~= "0000000000000000" then held[#held + 1] = k end
    end
    local enf = r.outcome.enforcement
    if type(enf) == "table" and enf.caps_dropped ~= nil then
      t:note("note", "enforcement.caps_dropped=" .. tostring(enf.caps_dropped))
    end
    if #held > 0 then return "held:" .. table.concat(held, ",") end
    return "none"
  end,
}
