-- Fault sweep: every setup syscall of the runner, at every call.  For each
-- syscall below the runner makes (counted with a hold on a plain run), and
-- for each k from 1 to that count, the runner is started with calls k, k+1,
-- ... of that syscall failing with EPERM.  Each such run must either
-- refuse (sandbox_setup_failure naming a step; the command never ran) or,
-- when the failing call came after the command started or was one the
-- runner may do without, run the command fully confined: the probe's
-- write into the workspace is its mark, and then a write outside, a write
-- into the read-only .git/hooks, io_uring, capabilities, no_new_privs and
-- (with Landlock scopes) signalling the sandbox's pid 1 are checked from
-- inside and on the host, and the enforcement reported must be the plain
-- run's.  Anything else is a failure.
-- The plain run is the positive control (it ran, and it was confined).
local SYSCALLS = {
  "clone3", "clone", "unshare", "setns", "setsid", "prctl", "capset",
  "mount", "umount2", "mount_setattr", "open_tree", "move_mount", "pivot_root",
  "fsopen", "fsconfig", "fsmount", "openat2", "mkdirat", "symlinkat", "chdir", "fchdir",
  "socket", "ioctl", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
  "landlock_restrict_self", "inotify_init1", "inotify_add_watch",
}

return scenario {
  id = "setup.fault_sweep",
  clauses = { "SETUP-1", "SETUP-3", "OUT-1", "OUT-4" },
  claim = "whichever setup syscall of the runner fails, at whichever call, the runner refuses or the command still runs fully confined",
  expect = { linux = { "fail_closed" }, macos = { "fail_closed" }, windows = { "fail_closed" } },
  run = function(t)
    local ran, escape, hook = t.ws .. "/ran", t.outside .. "/escaped", t.ws .. "/.git/hooks/pre-commit"
    local function spec()
      return { probe = { { "write", ran, "x" }, { "write", escape, "x" }, { "write", hook, "x" },
                         { "io_uring" }, { "caps" }, { "no_new_privs" }, { "kill", 1, 0 } } }
    end
    local ZERO = "0000000000000000"
    -- what a confined run looks like from inside and on the host, compared
    -- with the plain run (base); nil if so
    local base
    local function breach(r)
      if sp.exists(escape) then return "wrote outside" end
      if sp.exists(hook) then return "wrote .git/hooks" end
      local p = r.probe
      if not (p[3] and p[4] and p[5] and p[6]) then return "probe cut short" end
      if p[3].ok then return "hooks writable" end
      if p[4].ok then return "io_uring allowed" end
      if p[5].ok and (p[5].eff ~= ZERO or p[5].prm ~= ZERO or p[5].bnd ~= ZERO or p[5].amb ~= ZERO) then
        return "capabilities left: eff " .. tostring(p[5].eff) .. " bnd " .. tostring(p[5].bnd)
      end
      if p[6].ok and p[6].value ~= 1 then return "no_new_privs not set" end
      -- the enforcement reported must be the plain run's (OUT-4), only
      -- denials_reported may differ (the harness's own notifier takes the
      -- kernel's one listener); with Landlock scopes (ABI >= 6), signalling
      -- the sandbox's pid 1, outside the command's domain, must fail
      local function tab(x) return type(x) == "table" and x or {} end
      local function same(a, b) -- by value (enforcement.limits is a table of tables)
        if type(a) ~= "table" or type(b) ~= "table" then return a == b end
        for k, v in pairs(a) do if not same(v, b[k]) then return false end end
        for k in pairs(b) do if a[k] == nil then return false end end
        return true
      end
      local e, be = tab(r.outcome.enforcement), tab(base and base.outcome.enforcement)
      for k, v in pairs(be) do
        if k ~= "denials_reported" and not same(e[k], v) then
          return "enforcement " .. k .. " " .. sp.json_encode(e[k] == nil and sp.null or e[k]) ..
                 " (plain run " .. sp.json_encode(v) .. ")"
        end
      end
      if type(be.landlock_abi) == "number" and be.landlock_abi >= 6 and (not p[7] or p[7].ok) then
        return "no Landlock signal scope: pid 1 could be signalled"
      end
      return nil
    end
    -- the sweep's runs would fill the evidence (64 entries at most) with
    -- their routine outcome lines; keep only what this scenario notes
    local function quiet(mark)
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
    end
    local function reset()
      for _, f in ipairs { ran, escape, hook } do sp.unlink(f) end
    end
    -- positive control: a plain run runs, confined
    local r0 = t:ran(t:sandbox(spec()))
    if not sp.exists(ran) then return "control_failed" end
    base = r0
    local b0 = breach(r0)
    if b0 then t:note("note", "plain run: " .. b0); return "unconfined" end
    reset()
    local attempts, refused, confined, unclear, no_outcome, unused, mangled = 0, 0, 0, 0, 0, {}, {}
    local steps = {}
    for _, sc in ipairs(SYSCALLS) do
      local mark = #t.evidence
      local n = t:hold_count { syscalls = { sc }, sandbox = spec() }
      quiet(mark)
      reset()
      if n == 0 then unused[#unused + 1] = sc end
      for k = 1, n do
        attempts = attempts + 1
        mark = #t.evidence
        local r = t:fault { syscall = sc, errno = "EPERM", nth = k, sandbox = spec() }
        quiet(mark)
        local o = r.outcome
        local se = type(o.setup_error) == "table" and o.setup_error or {}
        if sp.exists(ran) then
          local b = breach(r)
          if b then
            t:note("note", string.format("%s #%d failing: the command ran unconfined (%s), kind %s",
              sc, k, b, tostring(o.kind)))
            return "unconfined"
          end
          if o.kind == "sandbox_setup_failure" then
            t:note("note", string.format("%s #%d failing: refused after the command ran", sc, k))
            return "ran_after_refusal"
          end
          confined = confined + 1
          t:note("note", string.format("%s #%d failing: ran confined, kind %s", sc, k, tostring(o.kind)))
        elseif o.kind == "sandbox_setup_failure" and type(se.step) == "string" and se.step ~= "" then
          refused = refused + 1
          local key = sc .. "->" .. se.step .. ":" .. tostring(se.errno)
          steps[key] = (steps[key] or 0) + 1
          if se.errno ~= "EPERM" then mangled[#mangled + 1] = string.format("%s #%d: %s %s", sc, k, se.step, tostring(se.errno)) end
        elseif o.kind == "runner_failed" then
          -- nothing ran, but there is no outcome either (OUT-1, SETUP-1)
          t:note("note", string.format("%s #%d failing: the runner exited %s without an outcome: %s",
            sc, k, tostring(o.exit and o.exit.code), tostring(o.stderr or ""):sub(1, 200)))
          no_outcome = no_outcome + 1
        else
          t:note("note", string.format("%s #%d failing: nothing ran but the outcome is %s (setup_error %s)",
            sc, k, tostring(o.kind), sp.json_encode(o.setup_error or {})))
          unclear = unclear + 1
        end
        reset()
      end
    end
    local keys = {}
    for k, v in pairs(steps) do keys[#keys + 1] = k .. " x" .. v end
    table.sort(keys)
    t:note("note", string.format("%d faulted runs: %d refused, %d refused without an outcome, %d ran confined; " ..
      "not used: %s\nsyscall->step:errno\n%s", attempts, refused, no_outcome, confined, table.concat(unused, " "),
      table.concat(keys, "\n")))
    if #mangled > 0 then
      t:note("note", "refusals naming another errno than the injected EPERM:\n" .. table.concat(mangled, "\n"))
    end
    t:set_power { attempts = attempts, windows = refused, min = 1 }
    if unclear > 0 then return "unclear_refusal" end
    if no_outcome > 0 then return "refused_without_outcome" end
    return "fail_closed"
  end,
}
