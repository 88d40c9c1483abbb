-- Exit codes propagate exactly.  The probe exits with 0, 1, 42 and 255 in
-- turn (it reports the code it is about to use in its own line, so the
-- sandbox's side of the story is on record); the outcome must carry the
-- same code each time, success only for 0.  The run with 0 is the
-- positive control.
return scenario {
  id = "proc.exit_code_exact",
  clauses = { "PROC-1", "OUT-2", "OUT-3" },
  claim = "the command's exit code reaches the outcome exactly, and only 0 is success",
  expect = { linux = { "exact" }, macos = { "exact" }, windows = { "exact" } },
  impact = { wrong_code = "reporting", did_not_run = "fidelity" },
  control = "fs.workspace_writable",
  unconfined_passes = true,
  run = function(t)
    local seen = {}
    for _, code in ipairs { 0, 1, 42, 255 } do
      local r = t:ran(t:sandbox { probe = { { "write", t.ws .. "/ran-" .. code, "x" }, { "exit", code, as = "exit" } } })
      local o = r.outcome
      local got = o.exit and o.exit.code
      seen[#seen + 1] = string.format("%d->%s/%s", code, tostring(got), tostring(o.kind))
      if not sp.exists(t.ws .. "/ran-" .. code) or not (r.op.exit and r.op.exit.code == code) then
        return code == 0 and "control_failed" or "did_not_run"
      end
      local want = code == 0 and "success" or "application_failure"
      if got ~= code or o.kind ~= want then
        t:note("note", table.concat(seen, " "))
        return "wrong_code"
      end
    end
    t:note("note", table.concat(seen, " "))
    return "exact"
  end,
}
