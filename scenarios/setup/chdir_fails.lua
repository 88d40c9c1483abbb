-- A working directory that cannot be entered is a setup failure, and the
-- command does not run: once a cwd that does not exist, once one that is a
-- regular file.  The positive control: the same command with a cwd that
-- exists runs and leaves its mark.  The command is a probe write (no
-- shell): the same on every OS.
return scenario {
  id = "setup.chdir_fails",
  clauses = { "SETUP-1", "SETUP-2" },
  claim = "a cwd that cannot be entered yields sandbox_setup_failure (step chdir) and the command does not run",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ran = "fidelity", ["not_refused:*"] = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local mark = t.ws .. "/ran"
    local cmd = { { "write", mark, "x\n" } }
    local r0 = t:sandbox { probe = cmd }
    if r0.outcome.kind ~= "success" or not sp.exists(mark) then return "control_failed" end
    assert(sp.unlink(mark))
    assert(sp.write(t.ws .. "/plain-file", "x"))
    for _, cwd in ipairs { t.ws .. "/missing", t.ws .. "/plain-file" } do
      local r = t:sandbox { cwd = cwd, probe = cmd }
      local o = r.outcome
      local se = type(o.setup_error) == "table" and o.setup_error or {}
      t:note("note", string.format("cwd %s: kind %s step %s errno %s", cwd:match("[^/]+$"), tostring(o.kind),
        tostring(se.step), tostring(se.errno)))
      if sp.exists(mark) then return "ran" end
      if o.kind ~= "sandbox_setup_failure" or se.step ~= "chdir" then return "not_refused:" .. tostring(o.kind) end
    end
    return "refused"
  end,
}
