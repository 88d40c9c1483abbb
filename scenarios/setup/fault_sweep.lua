-- Fault sweep: every setup syscall of the runner, at every call, in two
-- modes.  For each syscall below the runner makes (counted with a hold on
-- a plain run), and for each k from 1 to that count, the runner is started
-- once with calls k, k+1, ... of that syscall failing with EPERM ("from k
-- on"), and once with call k alone failing ("single shot", t:fault once).
-- From k on, a step whose failure is ignored is usually hidden by a later
-- step that refuses; a single shot fails that step alone, so a runner that
-- ignores it goes on and runs the command - with / writable, say, while
-- Landlock still refuses every write.  So the oracle is the command's
-- environment, not the outcome: each run must either refuse
-- (sandbox_setup_failure naming a step; the command never ran) or run the
-- command exactly as confined as the plain run:
--   - from the host: no write outside the workspace, none into the
--     read-only .git/hooks;
--   - from inside: io_uring refused, no capability, no_new_privs, and
--     (lib.effect_ops) every namespace new, /proc/self/status, the mount
--     options of /, /tmp, /dev, /dev/pts, /dev/shm, /proc, the workspace
--     and .git/hooks, the Landlock write to /proc/self/comm and the
--     Landlock signal scope on pid 1 - all as in the plain run;
--   - the enforcement reported is the plain run's (OUT-4; only
--     denials_reported may differ: the harness's notifier takes the
--     kernel's one listener).
-- A run less confined than that, seen from inside only, is `weakened`
-- (hardening); one whose write outside or into .git/hooks landed on the
-- host is `unconfined` (an escape).
-- A step that fails once and is retried is fine: the run is then confined.
-- The plain run is the positive control (it ran, and it was confined:
-- every enforcement fact it reports true by its effect, as in
-- setup.enforcement_effects).
-- Power: a counted run (from k >= 2, or single shot: the harness answers
-- each call) in which call k never came proves nothing about k; it is
-- repeated (t:fault), and every counted run must have hit its call.
local lib = require "sandproof.lib"

local SYSCALLS = {
  "clone3", "clone", "unshare", "setns", "setsid", "prctl", "capset",
  "mount", "umount2", "mount_setattr", "open_tree", "move_mount", "pivot_root",
  "fsopen", "fsconfig", "fsmount", "openat2", "mkdirat", "symlinkat", "chdir", "fchdir",
  "socket", "ioctl", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
  "landlock_restrict_self", "inotify_init1", "inotify_add_watch",
}
local ZERO = "0000000000000000"
local STATUS = { "NoNewPrivs", "Seccomp", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" }

-- The confinement a run shows, compared with the plain run's (base) and
-- the namespaces outside; nil if they match, else what differs.
local function effects_differ(r, base, outside, extra)
  local fx, bx = lib.effects(r, extra), lib.effects(base, extra)
  for path, b in pairs(bx.mounts) do
    if fx.mounts[path] ~= b then
      return string.format("mount %s: %s (plain run %s)", path, fx.mounts[path], b)
    end
  end
  if fx.comm ~= bx.comm then
    return string.format("Landlock: write /proc/self/comm %s (plain run %s)", fx.comm, bx.comm)
  end
  for _, n in ipairs(lib.NS) do
    local ns = n[2]
    if bx.ns[ns] ~= outside.ns[ns] and (not fx.ns[ns] or fx.ns[ns] == outside.ns[ns]) then
      return string.format("namespace %s: %s, the runner's own", ns, tostring(fx.ns[ns]))
    end
  end
  for _, k in ipairs(STATUS) do
    if fx.status[k] ~= bx.status[k] then
      return string.format("/proc/self/status %s %s (plain run %s)", k, tostring(fx.status[k]), tostring(bx.status[k]))
    end
  end
end

-- Was the run as confined as the plain run (base)?  nil if so, else what
-- differs and whether it is an effect on the host (a write outside or into
-- .git/hooks landed: an escape) or only seen from inside (io_uring, a
-- capability, a mount option...: less confined, nothing seen beyond).
local function breach(t, r, base, outside, extra, nops)
  local escape, hook = t.outside .. "/escaped", t.ws .. "/.git/hooks/pre-commit"
  if sp.exists(escape) then return "wrote outside", true end
  if sp.exists(hook) then return "wrote .git/hooks", true end
  local p = r.op
  if #r.probe < nops then return "probe cut short" end
  if p.hook.ok then return "hooks writable" end
  if p.io_uring.ok then return "io_uring allowed" end
  local c = p.caps
  if c.ok and (c.eff ~= ZERO or c.prm ~= ZERO or c.bnd ~= ZERO or c.amb ~= ZERO) then
    return "capabilities left: eff " .. tostring(c.eff) .. " bnd " .. tostring(c.bnd)
  end
  if p.nnp.ok and p.nnp.value ~= 1 then return "no_new_privs not set" end
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
  if type(be.landlock_abi) == "number" and be.landlock_abi >= 6 and p.kill1.ok then
    return "no Landlock signal scope: pid 1 could be signalled"
  end
  return base and effects_differ(r, base, outside, extra)
end

-- One faulted run's verdict: "refused", "confined", or nil and a finding
-- (the scenario's outcome) with its note.
local function judge(t, r, base, outside, extra, nops, what)
  local o = r.outcome
  local se = type(o.setup_error) == "table" and o.setup_error or {}
  if sp.exists(t.ws .. "/ran") then
    local b, host = breach(t, r, base, outside, extra, nops)
    if b then
      return nil, host and "unconfined" or "weakened",
        string.format("%s: the command ran %s (%s), kind %s", what, host and "unconfined" or "less confined than the plain run",
          b, tostring(o.kind))
    end
    if o.kind == "sandbox_setup_failure" then
      return nil, "ran_after_refusal", what .. ": refused after the command ran"
    end
    return "confined", nil, string.format("%s: ran confined, kind %s", what, tostring(o.kind))
  end
  if o.kind == "sandbox_setup_failure" and type(se.step) == "string" and se.step ~= "" then
    return "refused", nil, nil, se
  end
  if o.kind == "runner_failed" then
    -- nothing ran, but there is no outcome either (OUT-1, SETUP-1)
    return "no_outcome", nil, string.format("%s: the runner exited %s without an outcome: %s", what,
      tostring(o.exit and o.exit.code), tostring(o.stderr or ""):sub(1, 200))
  end
  return "unclear", nil, string.format("%s: nothing ran but the outcome is %s (setup_error %s)", what,
    tostring(o.kind), sp.json_encode(o.setup_error or {}))
end

return scenario {
  id = "setup.fault_sweep",
  clauses = { "SETUP-1", "SETUP-3", "OUT-1", "OUT-4" },
  claim = "whichever setup syscall of the runner fails, at whichever call, from then on or that call alone, the runner refuses or the command still runs exactly as confined",
  expect = { linux = { "fail_closed" },
             macos = { unsupported = "no syscall interposition on macOS: fault injection needs a seccomp filter" },
             windows = { unsupported = "no fault injection on Windows: no way to make a system call of the runner fail" } },
  impact = { unconfined = "escape", weakened = "hardening", misreported = "reporting", ran_after_refusal = "reporting", refused_without_outcome = "reporting", unclear_refusal = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local ran, escape, hook = t.ws .. "/ran", t.outside .. "/escaped", t.ws .. "/.git/hooks/pre-commit"
    local extra = { t.ws, t.ws .. "/.git/hooks" }
    local ops = { { "write", ran, "x" }, { "write", escape, "x" }, { "write", hook, "x", as = "hook" },
                  { "io_uring", as = "io_uring" }, { "caps", as = "caps" }, { "no_new_privs", as = "nnp" },
                  { "kill", 1, 0, as = "kill1" } }
    for _, op in ipairs(lib.effect_ops(extra)) do ops[#ops + 1] = op end
    local function spec() return { probe = ops } end
    local function reset()
      for _, f in ipairs { ran, escape, hook } do sp.unlink(f) end
    end
    -- the sweep's runs would fill the evidence (256 entries at most) with
    -- their routine outcome lines; keep only what this scenario notes
    local function quiet(mark)
      for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
    end
    local outside = lib.outside_effects(t)
    -- positive control: a plain run runs, confined
    local base = t:ran(t:sandbox(spec()))
    if not sp.exists(ran) then return "control_failed" end
    local b0, host = breach(t, base, nil, outside, extra, #ops)
    if b0 then t:note("note", "plain run: " .. b0); return host and "unconfined" or "weakened" end
    b0 = lib.enforcement_problem(base.outcome, lib.effects(base, extra), outside)
    if b0 then t:note("note", "plain run reports what it did not apply: " .. b0); return "misreported" end
    reset()
    local MODES = { { name = "from k on", once = false }, { name = "single shot", once = true } }
    local tally = { ["from k on"] = {}, ["single shot"] = {} }
    local counted, hit, unused, mangled, steps = 0, 0, {}, {}, {}
    for _, sc in ipairs(SYSCALLS) do
      local mark = #t.evidence
      local n = t:hold_count { syscalls = { sc }, sandbox = spec() }
      quiet(mark)
      reset()
      if n == 0 then unused[#unused + 1] = sc end
      for k = 1, n do
        -- at the last call, a single shot is the same fault as from k on
        for m = 1, k < n and 2 or 1 do
          local mode = MODES[m]
          mark = #t.evidence
          local r = t:fault { syscall = sc, errno = "EPERM", nth = k, once = mode.once, sandbox = spec(),
                              reset = reset }
          quiet(mark)
          if r.fault_hit ~= nil then
            counted = counted + 1
            if r.fault_hit then hit = hit + 1 end
          end
          local what = string.format("%s #%d failing (%s)", sc, k, mode.name)
          local v, finding, note, se = judge(t, r, base, outside, extra, #ops, what)
          if note then t:note("note", note) end
          if finding then return finding end
          tally[mode.name][v] = (tally[mode.name][v] or 0) + 1
          if v == "refused" then
            local key = sc .. "->" .. se.step .. ":" .. tostring(se.errno)
            steps[key] = (steps[key] or 0) + 1
            if se.errno ~= "EPERM" then mangled[#mangled + 1] = what .. ": " .. se.step .. " " .. tostring(se.errno) end
          end
          reset()
        end
      end
    end
    local keys = {}
    for k, v in pairs(steps) do keys[#keys + 1] = k .. " x" .. v end
    table.sort(keys)
    t:note("note", string.format("from k on: %s; single shot: %s; runs in which the harness counted the calls: " ..
      "%d, the faulted call came in %d (from k = 1 fails every call, not counted); not used: %s\n" ..
      "syscall->step:errno\n%s", lib.tally(tally["from k on"]), lib.tally(tally["single shot"]), counted, hit,
      table.concat(unused, " "), table.concat(keys, "\n")))
    if #mangled > 0 then
      t:note("note", "refusals naming another errno than the injected EPERM:\n" .. table.concat(mangled, "\n"))
    end
    t:set_power { attempts = counted, windows = hit, min = counted }
    if (tally["from k on"].unclear or 0) + (tally["single shot"].unclear or 0) > 0 then return "unclear_refusal" end
    if (tally["from k on"].no_outcome or 0) + (tally["single shot"].no_outcome or 0) > 0 then
      return "refused_without_outcome"
    end
    return "fail_closed"
  end,
}
