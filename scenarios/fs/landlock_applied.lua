-- With Landlock in the kernel, the runner applies it and says so:
-- enforcement.landlock_abi is > 0 and no more than the kernel's ABI
-- (OUT-4: what was applied, never what was asked).  The host's ABI is read
-- on the host, with landlock_create_ruleset(NULL, 0, VERSION) (syscall 444
-- on every Linux architecture), through perl's syscall() because the
-- harness has no primitive for it.  A host without Landlock skips.
local function host_abi()
  local r = sp.spawn { argv = { "perl", "-e", "my $v = syscall(444, 0, 0, 1); print $v < 0 ? 0 : $v" },
                       timeout_ms = 5000 }
  if not (r and r.code == 0) then return nil end
  return tonumber(r.stdout)
end

return scenario {
  id = "fs.landlock_applied",
  clauses = { "FS-6", "OUT-4" },
  claim = "when the kernel has Landlock, the runner applies it and reports the ABI it used",
  expect = { linux = { "applied" }, macos = { "not_applicable" }, windows = { "not_applicable" } },
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local abi = host_abi()
    if not abi then t:skip("cannot read the host's Landlock ABI (perl is missing)") end
    if abi <= 0 then t:skip("Landlock unavailable in this kernel") end
    local r = t:ran(t:sandbox { probe = { { "write", t.ws .. "/control", "ok" } } })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local e = r.outcome.enforcement
    local used = type(e) == "table" and tonumber(e.landlock_abi) or nil
    t:note("note", string.format("host Landlock ABI %d, enforcement.landlock_abi %s", abi, tostring(used)))
    if not used or used <= 0 then return "not_applied" end
    if used > abi then return "overstated" end
    return "applied"
  end,
}
