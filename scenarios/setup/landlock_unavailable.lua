-- Landlock reported as the kernel answers.  The runner is started with
-- landlock_create_ruleset failing: with ENOSYS (a kernel without Landlock)
-- the contract lets it run on the mount layer alone, but then
-- enforcement.landlock_abi must say 0 and the mount layer must still hold
-- (.git/hooks and the area outside the write roots stay read-only, checked
-- on the host); with EPERM (Landlock present but failing) it must refuse.
-- The positive control: the plain run reports the kernel's ABI (>= 1) and
-- runs, confined.
return scenario {
  id = "setup.landlock_unavailable",
  clauses = { "FS-6", "OUT-4", "SETUP-3" },
  claim = "without Landlock (ENOSYS) the runner reports landlock_abi 0 and stays confined by mounts; a failing Landlock (EPERM) is refused",
  expect = { linux = { "honest" },
             macos = { unsupported = "Landlock is Linux only (and its absence is faked with a seccomp fault)" },
             windows = { "honest" } },
  impact = { ran_without_landlock = "hardening", unconfined = "escape", landlock_claimed = "reporting", ["unclear:*"] = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local ran, hook, escape = t.ws .. "/ran", t.ws .. "/.git/hooks/pre-commit", t.outside .. "/escaped"
    local probe = { { "write", ran, "x" }, { "write", hook, "x" }, { "write", escape, "x" } }
    local function clean() for _, f in ipairs { ran, hook, escape } do sp.unlink(f) end end
    local r0 = t:ran(t:sandbox { probe = probe })
    local function abi(o) return type(o.enforcement) == "table" and o.enforcement.landlock_abi or nil end
    local abi0 = abi(r0.outcome)
    if not sp.exists(ran) then return "control_failed" end
    if sp.exists(hook) or sp.exists(escape) then return "unconfined" end
    -- a runner whose outcome carries no landlock_abi (a peer: its adapter
    -- has no such fact to give) cannot be asked this claim; that is not a
    -- failed control of another ability
    if type(abi0) ~= "number" then
      t:unsupported("the runner reports no enforcement.landlock_abi (OUT-4): its Landlock use cannot be checked")
    end
    if abi0 < 1 then t:skip("landlock unavailable on this kernel (the plain run reports landlock_abi 0)") end
    clean()
    -- no Landlock in the kernel
    local r1 = t:fault { syscall = "landlock_create_ruleset", errno = "ENOSYS", sandbox = { probe = probe } }
    local o1 = r1.outcome
    local abi1 = abi(o1)
    t:note("note", string.format("ENOSYS: kind %s landlock_abi %s ran %s", tostring(o1.kind), tostring(abi1),
      tostring(sp.exists(ran))))
    if sp.exists(hook) or sp.exists(escape) then return "unconfined" end
    if sp.exists(ran) then
      if abi1 ~= 0 then return "landlock_claimed" end
    elseif o1.kind ~= "sandbox_setup_failure" then
      return "unclear:" .. tostring(o1.kind)
    end
    clean()
    -- Landlock present but failing
    local r2 = t:fault { syscall = "landlock_create_ruleset", errno = "EPERM", sandbox = { probe = probe } }
    local o2 = r2.outcome
    local se = type(o2.setup_error) == "table" and o2.setup_error or {}
    t:note("note", string.format("EPERM: kind %s step %s errno %s ran %s", tostring(o2.kind), tostring(se.step),
      tostring(se.errno), tostring(sp.exists(ran))))
    if sp.exists(hook) or sp.exists(escape) then return "unconfined" end
    if sp.exists(ran) then return "ran_without_landlock" end
    if o2.kind ~= "sandbox_setup_failure" or se.step ~= "landlock" then return "unclear:" .. tostring(o2.kind) end
    return "honest"
  end,
}
