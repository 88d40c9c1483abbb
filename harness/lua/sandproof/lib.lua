-- sandproof.lib - small helpers scenarios share.  `local lib = require
-- "sandproof.lib"` in a scenario file.
local sp = require "sp"
local check = require "sandproof.check"
local context = require "sandproof.context"

local M = {}

-- A table that encodes as a JSON array even when empty.
function M.array(t) return setmetatable(t or {}, { __jsonarray = true }) end

-- A tally ({name = count}) as evidence text: "a=2 b=1", names sorted.
function M.tally(counts)
  local out = {}
  for k, c in pairs(counts) do out[#out + 1] = k .. "=" .. c end
  table.sort(out)
  return table.concat(out, " ")
end

-- Run one command through the runner under test with a runtime root for
-- workspace ws under parent (limits large, so this run evicts nothing) and
-- return the root it reported, whose tmp/f then holds "x\n".  Shell-free
-- (the same on every OS): a first run reports its TMPDIR
-- (M.rt_provision), a second writes tmp/f there by probe ops (M.rt_run).
-- Raises (verdict error) when no root came back or the write failed: every
-- RT scenario needs one to exist before it can say anything.
function M.rt_use_root(t, parent, ws)
  if not sp.exists(ws) then assert(sp.mkdir(ws)) end
  local p = t.profiles.workspace_write()
  p.filesystem.write_roots = M.array { { root = ws } }
  p.runtime = { parent = parent, max_age_s = 864000, max_roots = 64 }
  local root = M.rt_provision(t, p, ws)
  if not root then t:error("could not provision a runtime root (see the note)") end
  local _, ok, why = M.rt_run(t, { profile = p, cwd = ws }, root, { { "write", root .. "/tmp/f", "x\n" } })
  if not ok then t:error("could not use the runtime root " .. root .. ": " .. why) end
  return root
end

-- A runtime root for `profile` (which names profile.runtime), provisioned
-- by a first run (in cwd, when given) that prints its TMPDIR: the root the
-- runner reported, or nil (with a note) when none came back or TMPDIR is
-- not in it - the positive control of the swap.runtime_root_* scenarios.
function M.rt_provision(t, profile, cwd)
  local r0 = t:ran(t:sandbox { profile = profile, cwd = cwd, probe = { { "env", "TMPDIR", as = "tmpdir" } } })
  local root = type(r0.outcome.runtime) == "table" and r0.outcome.runtime.root or nil
  if not (root and r0.op.tmpdir and r0.op.tmpdir.value == root .. "/tmp") then
    t:note("note", "no runtime root reported, or TMPDIR not in it")
    return nil
  end
  return root
end

-- A run on the known runtime root `root`, shell-free: t:sandbox(spec)
-- with, as its probe, the run's TMPDIR first (named "rt:tmpdir") and then
-- ops, whose paths spell root .. "/tmp/..." (the first op shows that is
-- the run's TMPDIR).  Returns r, and true when the run succeeded, its
-- TMPDIR was root/tmp and every op ran and was ok; else false and why.
-- Where a shell would have said `echo x > "$TMPDIR/f"`, the root comes
-- from an earlier run (M.rt_provision, or a run's outcome.runtime.root).
function M.rt_run(t, spec, root, ops)
  local probe = { { "env", "TMPDIR", as = "rt:tmpdir" } }
  for _, op in ipairs(ops) do probe[#probe + 1] = op end
  local full = {}
  for k, v in pairs(spec) do full[k] = v end
  full.probe = probe
  local r = t:sandbox(full)
  local kind, td = r.outcome.kind, r.op["rt:tmpdir"]
  if kind ~= "success" then return r, false, "outcome " .. tostring(kind) end
  if not (td and td.value == root .. "/tmp") then
    return r, false, string.format("TMPDIR %s, not %s/tmp", tostring(td and td.value), root)
  end
  for _, q in ipairs(r.probe) do
    if not q.ok then return r, false, string.format("op %s (%s): %s", tostring(q.i), tostring(q.op), tostring(q.errno)) end
  end
  if #r.probe < #probe then return r, false, string.format("the probe ran %d of %d ops", #r.probe, #probe) end
  return r, true
end

-- Did the runner report a typed denial of syscall `name`?  True as well
-- when it says it does not report denials (enforcement.denials_reported is
-- not true): then EPERM is all the evidence there can be.
function M.denial_reported(o, name)
  if not (type(o.enforcement) == "table" and o.enforcement.denials_reported == true) then
    return true
  end
  for _, d in ipairs(type(o.denials) == "table" and o.denials or {}) do
    if d.kind == "syscall" and d.name == name then return true end
  end
  return false
end

-- Does outcome o carry a typed protected_create denial naming path?
function M.denied_for(o, path)
  for _, d in ipairs(type(o.denials) == "table" and o.denials or {}) do
    if d.kind == "protected_create" and d.path == path then return true end
  end
  return false
end

-- Whether one of the probe results in `results` failed with a policy errno
-- (EPERM, EACCES, EROFS): the creation of an absent protected name was
-- refused in place (Seatbelt denies it by path, present or absent), so
-- there was nothing for a monitor to stop.
local POLICY_ERRNO = { EPERM = true, EACCES = true, EROFS = true }
function M.refused_in_place(results)
  for _, q in ipairs(results) do
    if q and not q.ok and POLICY_ERRNO[q.errno] then return true end
  end
  return false
end

-- META-3: a command creates the absent protected `target` by the probe ops
-- `attack`, between a workspace write (positive control) and, 2 s later,
-- another (after.txt: was it stopped?).  `created` (default target) must
-- not exist on the host afterwards, the run must be stopped, and the
-- outcome must be enforcement_denied with a protected_create denial naming
-- target.  Where the run was not stopped because an attack op was refused
-- in place (M.refused_in_place: macOS), "refused".  Returns "reported",
-- "refused", "created", "not_stopped", "unreported" or "control_failed".
function M.protected_create(t, target, attack, created)
  local probe = { { "write", t.ws .. "/sibling.txt", "ok" } }     -- positive control
  for _, op in ipairs(attack) do probe[#probe + 1] = op end
  probe[#probe + 1] = { "sleep", 2000 }                          -- room for the runner to stop it
  probe[#probe + 1] = { "write", t.ws .. "/after.txt", "x" }
  local r = t:ran(t:sandbox { probe = probe })
  if sp.read(t.ws .. "/sibling.txt") ~= "ok" then return "control_failed" end
  local o = r.outcome
  t:note("note", string.format("kind=%s denials=%s", tostring(o.kind), sp.json_encode(o.denials or {})))
  if sp.exists(created or target) then return "created" end
  if sp.exists(t.ws .. "/after.txt") then
    local tried = {}
    for _, q in ipairs(r.probe) do
      if math.type(q.i) == "integer" and q.i >= 1 and q.i <= #attack then tried[#tried + 1] = q end
    end
    return M.refused_in_place(tried) and "refused" or "not_stopped"
  end
  if o.kind ~= "enforcement_denied" or not M.denied_for(o, target) then return "unreported" end
  return "reported"
end

-- The entries of dir whose name equals name but for ASCII case, as they
-- are spelled on disk: on a case-insensitive volume these ARE name, so a
-- host oracle that lists them does not depend on how the volume answers a
-- lookup.  {} when dir is absent.
function M.case_spellings(dir, name)
  local out = {}
  for _, n in ipairs(sp.listdir(dir) or {}) do
    if n:lower() == name:lower() then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

-- What a failed positive control on a case-insensitive workspace
-- (t:casefold_workspace) means: "volume_lost" when the workspace itself no
-- longer answers (its FUSE daemon died: a runner removing a file under one
-- spelling while the command holds it open under another makes exfat-fuse
-- abort), else "control_failed".
function M.casefold_control(t)
  -- a listing asks the daemon; a lookup may be answered from the cache
  local names, err = sp.listdir(t.ws)
  if names then return "control_failed" end
  t:note("note", "the workspace's volume no longer answers: " .. tostring(err))
  return "volume_lost"
end

-- META-3 on a case-insensitive workspace (t:casefold_workspace): the
-- attack creates target under other spellings; the verdict is exactly
-- M.protected_create's for target (so the outcome must name target as the
-- policy spells it), and the host keeps no entry that is target under any
-- case (listed, not looked up).  The target must be absent before, under
-- every spelling.
function M.casefold_create(t, target, attack)
  local dir, name = target:match("^(.*)/([^/]+)$")
  if sp.exists(target) or #M.case_spellings(dir, name) > 0 then
    t:error(target .. " exists (under some spelling) before the run")
  end
  local v = M.protected_create(t, target, attack)
  if v == "control_failed" then return M.casefold_control(t) end
  local left = M.case_spellings(dir, name)
  if #left > 0 then
    t:note("note", "left on the host in " .. dir .. ": " .. table.concat(left, " "))
    return "created"
  end
  return v
end

-- NET-5 family check: in one probe, socket(AF_INET) and
-- socket(AF_NETLINK, NETLINK_ROUTE) must work (positive control) and the
-- `target` socket op (e.g. { "socket", "vsock", "stream" }) must fail with
-- EPERM and be reported as a `socket` denial.  Runs under network=allow
-- (inside a lab), so the refusal is not the network namespace's doing.
-- o.via_userns: the attack first tries from a user namespace of its own;
-- o.kernel_refusal: the refusal is the kernel's capability check (a
-- permitted family without CAP_NET_RAW), so no denial is expected.
local FAMILY_KEYS = check.set { "via_userns", "kernel_refusal" }
function M.socket_family_refused(t, target, o)
  check.keys(o, FAMILY_KEYS, "lib.socket_family_refused")
  o = o or {}
  t:lab() -- no packet ever leaves the lab
  local argv, names = M.probe_argv(t, {
    { "socket", "inet", "stream", as = "inet" },
    { "socket", "netlink", "raw", "0", as = "route" },
    { table.unpack(target) },
  })
  names[3] = "target"
  local ops = { table.unpack(argv, 2) }
  if o.via_userns then
    -- First try to gain the capability the family needs in a user and
    -- network namespace of its own (unshare -rn); only when that fails
    -- ask from where it stands.  Unconfined, even an unprivileged user
    -- gets the socket that way.
    local q = {}
    for _, a in ipairs(ops) do q[#q + 1] = "'" .. a .. "'" end
    local line = table.concat(q, " ")
    argv = { "sh", "-c", "unshare -rn \"$0\" " .. line .. " 2>/dev/null || exec \"$0\" " .. line,
             t.paths.probe }
  end
  local r = t:ran(t:sandbox { network = "allow", command = argv, op_names = names })
  local inet, route, s = r.op.inet, r.op.route, r.op.target
  if not (inet and route and s) then t:error("the probe stopped before the target socket") end
  t:note("note", string.format("inet ok=%s; netlink route ok=%s; target ok=%s errno=%s",
    tostring(inet.ok), tostring(route.ok), tostring(s.ok), tostring(s.errno)))
  if s.ok then return "opened" end
  if not (inet.ok and route.ok) then
    t:note("note", "positive control failed: permitted socket families were refused too")
    return "control_failed"
  end
  if s.errno ~= "EPERM" then return "errno_" .. tostring(s.errno) end
  if not o.kernel_refusal and not M.denial_reported(r.outcome, "socket") then return "unreported" end
  return "refused"
end

-- A TCP listener on the host's own address addr, for macOS, which has no
-- lab: the probe's listen_count, run by the harness outside any sandbox,
-- counts for window_ms (default 20000) every peer that reaches it.
-- Returns { port, addr, connect(), count() }, or nil, "why" when addr cannot
-- be bound here: connect() is the host's own connect to it (a positive
-- control the count includes), count() waits for the window's end and
-- returns the peers counted (-1 when the listener failed).  Safety: only
-- where t.os is "macos" (issue 15: traffic there stays on the machine);
-- elsewhere listeners are a lab's (t:lab), never the host network's.
local HOST_NET_OS = { macos = true }
function M.host_listener(t, addr, window_ms)
  if not HOST_NET_OS[t.os] then
    error("lib.host_listener: only on macOS (no lab there); on " .. tostring(t.os) .. " listen in a lab", 2)
  end
  window_ms = window_ms or 20000
  M._listeners = (M._listeners or 0) + 1
  local ready = string.format("%s/listener-%d.port", t.tmp, M._listeners)
  local bg = sp.spawn_bg { argv = { t.paths.probe, "listen_count", "tcp", addr, "0",
                                    tostring(window_ms), ready }, timeout_ms = window_ms + 10000 }
  if not bg then t:error("cannot start a host listener on " .. addr) end
  for _ = 1, 250 do
    if sp.exists(ready) then break end
    sp.sleep_ms(20)
  end
  local port = tonumber(sp.read(ready) or "")
  local function count()
    local out = bg:wait()
    for line in (out.stdout or ""):gmatch("[^\n]+") do
      local j = line:sub(1, 1) == "{" and sp.json_decode(line)
      if j and j.op == "listen_count" then return j.ok and j.accepted or -1, j.errno end
    end
    return -1
  end
  if not port then
    local _, errno = count()
    return nil, addr .. ": " .. tostring(errno)
  end
  return { port = port, addr = addr, count = count, connect = function()
    sp.spawn { argv = { t.paths.probe, "connect", "tcp", addr, tostring(port) }, timeout_ms = 10000 }
  end }
end

-- NET-1 reachability under deny: a listener at o.addr (o.proto "tcp" or
-- "udp") inside a lab (o.lab: options for t:lab) must get no connection or
-- datagram from the sandbox - the listener's count is the oracle, not the
-- client's word - while the sandbox's own loopback (o.ctl, default
-- 127.0.0.1) answers in the same probe (positive control).
-- Returns "denied", "reached" or "control_failed".
local UNREACHABLE_KEYS = check.set { "proto", "addr", "lab", "ctl" }
function M.deny_unreachable(t, o)
  check.keys(o, UNREACHABLE_KEYS, "lib.deny_unreachable")
  local proto, ctl_addr = o.proto or "tcp", o.ctl or "127.0.0.1"
  local lab = t:lab(o.lab)
  local port, id = lab:listen(proto, o.addr)
  local ctl = port == 47000 and 47001 or 47000
  local r = t:ran(t:sandbox {
    network = "deny",
    probe = { { "listen_echo", proto, ctl_addr, ctl },       -- positive control
              { "connect", proto, ctl_addr, ctl, as = "control" },
              { "connect", proto, o.addr, port, as = "target" } },
  })
  local c = r.op.target
  if not c then t:error("the probe stopped before the connect") end
  -- an accept may trail the client's connect: wait longer when it saw success
  local hits = lab:hits(id, 1, c.ok and 1000 or (proto == "udp" and 200 or 100))
  t:note("note", string.format("%s connect %s port %d ok=%s errno=%s step=%s; listener hits=%d",
    proto, o.addr, port, tostring(c.ok), tostring(c.errno), tostring(c.step), hits))
  if hits > 0 then return "reached" end
  if not (r.op.control and r.op.control.ok) then
    t:note("note", "positive control failed: the sandbox's own loopback (" .. ctl_addr .. ") did not answer")
    return "control_failed"
  end
  return "denied"
end

-- PRIV-2/3 against a process the command started itself (a `sleep` forked
-- by the shell that then execs the probe: same user, its own child, so
-- nothing but the sandbox stands in the way): probe op `op` on it must fail
-- with EPERM and, when the runner reports denials, be named `op`.  The
-- positive control in the same probe: kill(pid, 0) reaches it.  Returns
-- "refused", `won` (the op succeeded), "errno_X", "unreported" or
-- "control_failed".
function M.sibling_refused(t, op, won)
  local r = t:ran(t:sandbox { command = { "sh", "-c",
    'sleep 20 & exec "$0" kill $! 0 -- ' .. op .. ' $! -- kill $! 9', t.paths.probe },
    op_names = { "signal0", "attack", "kill" } })
  local k, p = r.op.signal0, r.op.attack
  if not (k and p) then t:error("the probe stopped before " .. op) end
  t:note("note", string.format("kill 0 ok=%s errno=%s; %s %s", tostring(k.ok), tostring(k.errno),
    op, sp.json_encode(p)))
  if p.ok then return won end
  if not k.ok then
    t:note("note", "positive control failed: the target could not be signalled")
    return "control_failed"
  end
  if p.errno ~= "EPERM" then return "errno_" .. tostring(p.errno) end
  if not M.denial_reported(r.outcome, op) then return "unreported" end
  return "refused"
end

-- PRIV-2 / FS-2: a read-only subpath of the workspace cannot be made
-- writable from inside by probe op `op` on it ("remount": MS_REMOUNT|
-- MS_BIND without MS_RDONLY; "umount": umount2 MNT_DETACH, which would
-- expose the writable workspace mount below).  Host oracle: the file
-- written beneath it afterwards must not exist on the host.  Positive
-- control: the sibling write in the workspace lands.  Returns "held",
-- "written" or "control_failed".
function M.ro_subpath_kept(t, op)
  local ro = t.ws .. "/ro"
  assert(sp.mkdir(ro))
  local profile = t.profiles.workspace_write()
  profile.filesystem.write_roots[1].read_only_subpaths = { ro }
  local r = t:ran(t:sandbox { profile = profile, probe = {
    { "write", t.ws .. "/control", "x" },                      -- positive control
    { op, ro, as = "attack" },
    { "write", ro .. "/planted", "x", as = "beneath" },
  } })
  local m, w = r.op.attack, r.op.beneath
  if not (m and w) then t:error("the probe stopped before the write beneath") end
  t:note("note", string.format("%s ok=%s errno=%s; write beneath ok=%s errno=%s", op,
    tostring(m.ok), tostring(m.errno), tostring(w.ok), tostring(w.errno)))
  if sp.exists(ro .. "/planted") then return "written" end
  if sp.read(t.ws .. "/control") ~= "x" then
    t:note("note", "positive control failed: the workspace write did not land")
    return "control_failed"
  end
  return "held"
end

-- The hold sweep of every *_held scenario.  A plain run (the positive
-- control: o.control(r0), default "the write to t.ws/ok landed"; and
-- o.changed(r0, 0) must see nothing changed) counts the calls among
-- o.syscalls; then for every k a run in which, at the k-th call, o.act(k,
-- syscall) changes the scene (default: exchange o.a and o.b) and returns
-- true when it did, o.undo() puts it back after a run whose window was hit
-- (default: exchange them back), o.changed(r, k) says what the run changed
-- outside the policy (nil: nothing), and o.reset() restores the scene
-- after each run.  o.spec() builds each run.  Power: every window must be
-- hit; with o.setup_only only the runner's setup counts - the windows
-- before the command's execve: a change after it is reported, not
-- counted.  A runner's call count varies by one or two between runs, so
-- which side of the execve a window fell on is told in each run by its
-- caller: the command's execve is an execve of a process below the
-- runner (the harness's child), and after it every call is the command's
-- (a process named sandproof-probe).  With o.path (Windows) the windows
-- are the opens of that path that break an oplock (t:hold on Windows),
-- each held while o.act runs.  Returns o.outcomes[1] (default "confined") or
-- [2] ("escaped"), or "control_failed".
local SWEEP_KEYS = check.set { "syscalls", "path", "spec", "changed", "reset", "a", "b", "act", "undo",
                               "control", "setup_only", "outcomes" }
local SWEEP_TYPES = { syscalls = "table", path = "string", spec = "function", changed = "function", reset = "function",
  a = "string", b = "string", act = "function", undo = "function", control = "function",
  setup_only = "boolean", outcomes = "table" }

-- Whether the held call (syscall name, caller pid in the harness's view)
-- was the command's: its execve (by a process below the runner, which is
-- the harness's child) or any call of the probe after it.
local function command_time(name, pid)
  local st = M.status_fields(sp.read("/proc/" .. tostring(pid) .. "/status"))
  if st.Name == "sandproof-probe" then return true end
  return name == "execve" and tonumber(st.PPid) ~= sp.getpid()
end

-- The windows of a sweep that count (1..last: before the first window
-- held in the command's time) and the escapes among them (not in the
-- command's time of their own run).
local function sweep_counted(o, n, names, escaped, cmd)
  local last = n
  if o.setup_only then
    for k = 1, n do
      if cmd[k] then last = k - 1 break end
    end
  end
  local hit, counted = 0, {}
  for k = 1, last do if names[k] then hit = hit + 1 end end
  for _, k in ipairs(escaped) do if not cmd[k] then counted[#counted + 1] = k end end
  return last, hit, counted
end

function M.swap_sweep(t, o)
  check.keys(o, SWEEP_KEYS, "lib.swap_sweep")
  for k, ty in pairs(SWEEP_TYPES) do check.type(o, k, ty, "lib.swap_sweep") end
  if not ((o.syscalls or o.path) and o.spec and o.changed) then
    error("lib.swap_sweep needs syscalls (or path: Windows), spec and changed", 2)
  end
  if o.setup_only and o.path then error("lib.swap_sweep: setup_only needs a syscall hold", 2) end
  if not (o.act or (o.a and o.b)) then error("lib.swap_sweep needs a and b, or act", 2) end
  local good, worse = (o.outcomes or {})[1] or "confined", (o.outcomes or {})[2] or "escaped"
  local act = o.act or function() return sp.swap(o.a, o.b) end
  local undo = o.undo or function() assert(sp.swap(o.a, o.b)) end
  local control = o.control or function() return sp.read(t.ws .. "/ok") == "ok" end
  local reset = o.reset or function() end
  -- positive control and the number of windows: a plain run
  local n, r0 = t:hold_count { syscalls = o.syscalls, path = o.path, sandbox = o.spec() }
  t:ran(r0)
  if not control(r0) then return "control_failed" end
  local bad = o.changed(r0, 0)
  if bad then
    t:note("note", "changed in the plain run: " .. bad)
    return worse
  end
  reset()
  if n == 0 then t:skip("the runner made none of the held syscalls") end
  local mark, names, escaped, kinds, cmd, absent = #t.evidence, {}, {}, {}, {}, {}
  for k = 1, n do
    local at
    local r = t:hold { syscalls = o.syscalls, path = o.path, at = k, sandbox = o.spec(), action = function(_, name, pid)
      if o.setup_only then cmd[k] = command_time(name, pid) end
      if act(k, name) then at = name end
    end }
    if not r.hold_hit and (r.hold_total or 0) < k then absent[k] = true end
    -- keep the evidence of the sweep readable: one summary, escapes only
    for i = #t.evidence, mark + 1, -1 do t.evidence[i] = nil end
    if r.hold_hit and not at then
      t:note("note", string.format("k=%d: held, but the act changed nothing", k))
      mark = #t.evidence
    end
    names[k] = at
    if at then undo() end
    local kind = tostring(r.outcome.kind)
    kinds[kind] = (kinds[kind] or 0) + 1
    bad = o.changed(r, k)
    if bad then
      escaped[#escaped + 1] = k
      if #escaped <= 4 then
        t:note("note", string.format("k=%d (%s), outcome %s: changed %s", k, tostring(at), kind, bad))
      end
      mark = #t.evidence
    end
    reset()
  end
  local last, hit, counted = sweep_counted(o, n, names, escaped, cmd)
  if o.setup_only and last == 0 then t:error("no window of the sweep fell before the command's execve") end
  -- The count of calls varies a little with timing (the command's and the
  -- supervisor's calls interleave): a window whose held runs (t:hold
  -- retried it) all ended before making k calls did not exist in them and
  -- is not owed - unless that is more than a tenth of the windows.
  local why_last, owed, gone = last < n and "before the command's execve" or nil, last, {}
  for k = 1, last do if absent[k] then gone[#gone + 1] = k end end
  if #gone > 0 and #gone * 10 <= last then
    owed = last - #gone
    t:note("note", string.format("windows k=%s: every held run ended before its k-th call (not owed)",
      table.concat(gone, ",", 1, math.min(#gone, 8))))
  end
  t:set_power { attempts = n, windows = hit, min = owed }
  t:note("note", string.format("windows %d%s, hit %d, outcomes %s, %s %d%s", n,
    why_last and string.format(" (counted: k <= %d, %s)", last, why_last) or "", hit,
    M.tally(kinds), worse, #counted, #escaped > 0 and (" at k=" .. table.concat(escaped, ",")) or ""))
  return #counted == 0 and good or worse
end

-- Host oracle: one line per entry under dir (path, type, a file's content);
-- symlinks are listed, never followed.  Equal snapshots: nothing changed.
function M.snapshot(dir)
  local out = {}
  local function walk(rel)
    local p = rel == "" and dir or dir .. "/" .. rel
    local st = sp.lstat(p)
    if not st then out[#out + 1] = rel .. " absent" return end
    if st.type == "dir" then
      out[#out + 1] = rel .. "/"
      local names = sp.listdir(p) or {}
      table.sort(names)
      for _, n in ipairs(names) do walk(rel == "" and n or rel .. "/" .. n) end
    else
      out[#out + 1] = rel .. " " .. st.type .. " " .. (tostring(sp.read(p)):gsub("\n", "\\n"))
    end
  end
  walk("")
  return table.concat(out, "\n")
end

-- The lines of after that are not in before (what appeared or changed).
function M.snapshot_diff(before, after)
  local seen, d = {}, {}
  for l in before:gmatch("[^\n]+") do seen[l] = true end
  for l in after:gmatch("[^\n]+") do
    if not seen[l] then d[#d + 1] = l:sub(1, 120) end
  end
  return #d > 0 and table.concat(d, "; ") or "(entries removed)"
end

-- The swapper of the swap family: runs the probe ops o.ops (after a first
-- 1 ms sleep) under a hold on the command's own first sleep - the probe's
-- (comm), not the runner's: runners sleep during setup too (srt's node),
-- and a swapper started then would race the setup, which the *_held sweeps
-- cover deterministically.  The hold's action starts a swapper exchanging
-- o.a and o.b; it stops (restoring the arrangement) when the run is over.
-- Records the race's power (exchanges, at least o.min, default 1000) and
-- returns the run (t:ran: the probe ran), the exchanges, the full op list
-- (probe result x.i indexes it from 0) and the failed ops as "ERRNO=n ...".
local SWAPPER_KEYS = check.set { "a", "b", "profile", "ops", "cwd", "min" }
function M.swapper_run(t, o)
  check.keys(o, SWAPPER_KEYS, "lib.swapper_run")
  local ops = { { "sleep", 1 } }
  for _, op in ipairs(o.ops) do ops[#ops + 1] = op end
  local s
  local r = t:hold { syscalls = { "clock_nanosleep", "nanosleep" }, at = 1,
                     comm = t.paths.probe:match("[^/]+$"):sub(1, 15),
                     sandbox = { profile = o.profile, cwd = o.cwd, probe = ops },
                     action = function() s = t:swapper(o.a, o.b) end }
  local exchanges = s and s:stop() or 0
  t:ran(r)
  t:set_power { attempts = 1, windows = exchanges, min = o.min or 1000 }
  local errs = {}
  for _, x in ipairs(r.probe) do
    if not x.ok then errs[x.errno or "?"] = (errs[x.errno or "?"] or 0) + 1 end
  end
  return r, exchanges, ops, M.tally(errs)
end

-- The probe's argument words for ops, to run the probe from a shell
-- command (`exec "$@"` after the shell's own work): { probe, op1 ..., "--",
-- op2 ... }, and the names of the ops' results (their `as`), for
-- t:sandbox's op_names.
function M.probe_argv(t, ops)
  return context.probe_argv(t.paths.probe, ops, "lib.probe_argv", 2)
end

-- A mount-options string ("ro,nosuid,relatime") as a set.
function M.opt_set(s)
  local set = {}
  for o in tostring(s or ""):gmatch("[^,]+") do set[o] = true end
  return set
end

-- The lines of /proc/self/mountinfo found in text (other lines skipped):
-- { id, parent, point (octal escapes decoded), options (a set), fstype }.
function M.mountinfo_parse(text)
  local out = {}
  for line in tostring(text or ""):gmatch("[^\n]+") do
    local id, parent, point, opts, fstype = line:match("^(%d+) (%d+) %S+ %S+ (%S+) (%S+).- %- (%S+) ")
    if id then
      point = point:gsub("\\(%d%d%d)", function(o) return string.char(tonumber(o, 8)) end)
      out[#out + 1] = { id = tonumber(id), parent = tonumber(parent), point = point,
                        options = M.opt_set(opts), raw = opts, fstype = fstype }
    end
  end
  return out
end

-- ---- enforcement seen by its effects (OUT-4) -------------------------------

-- The outcome's namespace facts and their /proc/self/ns names.
M.NS = { { "user_ns", "user" }, { "mount_ns", "mnt" }, { "pid_ns", "pid" }, { "net_ns", "net" },
         { "ipc_ns", "ipc" } }
-- The mounts whose options a confined run must show (FS-1, FS-4, FS-5).
M.EFFECT_MOUNTS = { "/", "/tmp", "/dev", "/dev/pts", "/dev/shm", "/proc" }

-- Probe ops showing, from inside, what was really enforced: the namespace
-- links, /proc/self/status (NoNewPrivs, Seccomp, Cap*), a write to
-- /proc/self/comm - on the fresh read-write /proc the mount layer allows
-- it, only Landlock refuses it (EACCES) - signal 0 to pid 1, which the
-- Landlock signal scope (ABI >= 6) refuses, io_uring_setup (refused by
-- seccomp, a typed denial when denials are reported), and the mountinfo
-- of EFFECT_MOUNTS and then of `mounts`.  The comm written is the probe's
-- own, so a hold keyed on it still matches.  Each op is named "fx:..."
-- (r.op); read them back with M.effects(r, mounts).
function M.effect_ops(mounts)
  local ops = {}
  for _, n in ipairs(M.NS) do ops[#ops + 1] = { "stat", "/proc/self/ns/" .. n[2], as = "fx:ns:" .. n[2] } end
  ops[#ops + 1] = { "read", "/proc/self/status", as = "fx:status" }
  ops[#ops + 1] = { "write", "/proc/self/comm", "sandproof-probe", as = "fx:comm" }
  ops[#ops + 1] = { "kill", 1, 0, as = "fx:kill1" }
  ops[#ops + 1] = { "io_uring", as = "fx:io_uring" }
  for _, p in ipairs(M.EFFECT_MOUNTS) do ops[#ops + 1] = { "mountinfo", p, as = "fx:mount:" .. p } end
  for _, p in ipairs(mounts or {}) do ops[#ops + 1] = { "mountinfo", p, as = "fx:mount:" .. p } end
  return ops
end

local function ok_or_errno(x) return not x and "missing" or x.ok and "ok" or tostring(x.errno) end

-- "Name:\tvalue" lines of a /proc/PID/status text, as a table.
function M.status_fields(text)
  local f = {}
  for k, v in tostring(text or ""):gmatch("([%w_]+):%s*([^\n]*)") do f[k] = v end
  return f
end

-- The effects in the results of a run r whose probe held effect_ops(mounts)
-- (by name, r.op): { ns = { user = "user:[...]", ... }, status = {...},
-- comm, kill1, io_uring = "ok" or an errno name, mounts = { [path] =
-- "fstype options" or "errno" }, mount = { [path] = the mountinfo result } }.
function M.effects(r, mounts)
  local fx, op = { ns = {}, mounts = {}, mount = {} }, r.op
  for _, n in ipairs(M.NS) do
    local x = op["fx:ns:" .. n[2]] or {}
    fx.ns[n[2]] = x.ok and x.target or nil
  end
  local st = op["fx:status"]
  fx.status = M.status_fields(st and st.ok and st.data)
  fx.comm, fx.kill1, fx.io_uring = ok_or_errno(op["fx:comm"]), ok_or_errno(op["fx:kill1"]),
    ok_or_errno(op["fx:io_uring"])
  local all = {}
  for _, m in ipairs(M.EFFECT_MOUNTS) do all[#all + 1] = m end
  for _, m in ipairs(mounts or {}) do all[#all + 1] = m end
  for _, m in ipairs(all) do
    local x = op["fx:mount:" .. m]
    fx.mount[m] = x or {}
    fx.mounts[m] = x and x.ok and (tostring(x.fstype) .. " " .. tostring(x.options)) or ok_or_errno(x)
  end
  return fx
end

-- The namespaces and seccomp filters of a process started the way the
-- runner is (t:spawn: same lab, no sandbox): what "new" is measured from.
function M.outside_effects(t)
  local ops = {}
  for _, n in ipairs(M.NS) do ops[#ops + 1] = { "stat", "/proc/self/ns/" .. n[2], as = n[2] } end
  ops[#ops + 1] = { "read", "/proc/self/status", as = "status" }
  local argv, names = M.probe_argv(t, ops)
  local r = t:spawn { argv = argv, timeout_ms = 10000 }
  local op = {}
  for line in tostring(r.stdout or ""):gmatch("[^\n]+") do
    local j = line:sub(1, 1) == "{" and sp.json_decode(line) or nil
    local name = j and j.op and math.type(j.i) == "integer" and names[j.i + 1]
    if name and op[name] == nil then op[name] = j end
  end
  local out = { ns = {} }
  for _, n in ipairs(M.NS) do out.ns[n[2]] = op[n[2]] and op[n[2]].ok and op[n[2]].target or nil end
  out.status = M.status_fields(op.status and op.status.ok and op.status.data)
  for _, n in ipairs(M.NS) do
    if not out.ns[n[2]] then t:error("cannot read the host's /proc/self/ns/" .. n[2]) end
  end
  return out
end

local ZERO = "0000000000000000"

local function mount_rw(m) return m and m.ok and M.opt_set(m.options).rw or false end

-- Each fact outcome o's enforcement reports, checked by its effect fx (from
-- M.effects) against outside (M.outside_effects).  A fact reported false,
-- or absent, claims nothing and is not checked.  Returns the first fact
-- whose effect is missing ("user_ns: user:[..] is the host's") or nil, and
-- a line per fact for the evidence.
function M.enforcement_problem(o, fx, outside)
  local e = type(o.enforcement) == "table" and o.enforcement or {}
  local lines, bad = {}, nil
  local function check(fact, ok, seen)
    lines[#lines + 1] = string.format("%s=%s: %s", fact, tostring(e[fact]), seen)
    if e[fact] and e[fact] ~= 0 and not ok and not bad then bad = fact .. ": " .. seen end
  end
  for _, n in ipairs(M.NS) do
    local inside = fx.ns[n[2]]
    check(n[1], inside and inside ~= outside.ns[n[2]],
      string.format("%s inside, %s outside", tostring(inside), tostring(outside.ns[n[2]])))
  end
  local s, so = fx.status, outside.status
  check("seccomp", s.Seccomp == "2" and (tonumber(s.Seccomp_filters) or 0) > (tonumber(so.Seccomp_filters) or 0),
    string.format("Seccomp %s with %s filters (outside %s)", tostring(s.Seccomp), tostring(s.Seccomp_filters),
      tostring(so.Seccomp_filters)))
  check("no_new_privs", s.NoNewPrivs == "1", "NoNewPrivs " .. tostring(s.NoNewPrivs))
  check("caps_dropped", s.CapInh == ZERO and s.CapPrm == ZERO and s.CapEff == ZERO and s.CapBnd == ZERO and
    s.CapAmb == ZERO, string.format("CapInh %s CapPrm %s CapEff %s CapBnd %s CapAmb %s", tostring(s.CapInh),
      tostring(s.CapPrm), tostring(s.CapEff), tostring(s.CapBnd), tostring(s.CapAmb)))
  local abi = tonumber(e.landlock_abi) or 0
  local proc_rw = mount_rw(fx.mount["/proc"])
  check("landlock_abi", proc_rw and fx.comm == "EACCES" and (abi < 6 or fx.kill1 == "EPERM"),
    string.format("write /proc/self/comm %s with /proc %s; kill(1, 0) %s", fx.comm,
      proc_rw and "read-write" or "not read-write (Landlock cannot be told apart)", fx.kill1))
  local named = false
  for _, d in ipairs(type(o.denials) == "table" and o.denials or {}) do
    named = named or (d.kind == "syscall" and d.name == "io_uring_setup")
  end
  check("denials_reported", fx.io_uring == "EPERM" and named,
    string.format("io_uring_setup %s, %s", fx.io_uring, named and "reported as a denial" or "no denial reported"))
  return bad, lines
end

-- Sibling prefixes (FS-2): a write-protecting policy on one directory of a
-- pair whose names share a prefix (t.ws/proj and t.ws/proj2, both in the
-- write root) must hold on it and leave the other writable - a component
-- boundary, not a string prefix.  Two runs: the policy on proj (proj2 the
-- sibling), then on proj2 (proj the sibling); profile(path) builds the
-- request.  In each, the workspace write is the positive control, the
-- sibling's file must be overwritten and the protected one must not (host
-- oracles).  Returns "exact", "written" (the policy did not hold),
-- "sibling_denied" (it reached the sibling) or "control_failed".
function M.sibling_prefix_write(t, profile)
  local dirs = { t.ws .. "/proj", t.ws .. "/proj2" }
  for _, d in ipairs(dirs) do
    assert(sp.mkdir(d))
    assert(sp.write(d .. "/f", "original\n"))
  end
  local notes, verdict = {}, "exact"
  for i, denied in ipairs(dirs) do
    local sibling, control = dirs[3 - i], string.format("%s/control%d", t.ws, i)
    local r = t:ran(t:sandbox { profile = profile(denied), probe = {
      { "write", control, "ok" },                                  -- positive control
      { "write", sibling .. "/f", "sibling", as = "sibling" },
      { "write", denied .. "/f", "pwned", as = "denied" },
    } })
    if sp.read(control) ~= "ok" then return "control_failed" end
    local s, d = r.op.sibling or {}, r.op.denied or {}
    notes[#notes + 1] = string.format("policy on %s: sibling write %s, write %s", denied:match("[^/]+$"),
      s.ok and "ok" or tostring(s.errno), d.ok and "ok" or tostring(d.errno))
    if sp.read(denied .. "/f") ~= "original\n" then verdict = "written"
    elseif sp.read(sibling .. "/f") ~= "sibling" and verdict == "exact" then verdict = "sibling_denied" end
    assert(sp.write(sibling .. "/f", "original\n"))
  end
  t:note("note", table.concat(notes, "; "))
  return verdict
end

-- The path-resolving calls a hold on a write root counts: those where a
-- runner resolves or attaches it (swap.write_root_held, explore's holds).
M.WRITE_ROOT_SYSCALLS = { "openat", "openat2", "open_tree", "move_mount", "mount_setattr",
                          "newfstatat", "statx", "chdir", "fchdir", "mkdirat", "mount" }

-- every syscall that resolves a path (unused ones cost nothing)
M.PATH_SYSCALLS = { "openat", "openat2", "open_tree", "move_mount", "mount_setattr", "mount",
                   "newfstatat", "statx", "chdir", "fchdir", "mkdirat", "symlinkat", "linkat",
                   "renameat2", "unlinkat", "readlink", "readlinkat", "access", "faccessat",
                   "faccessat2", "inotify_add_watch", "execve", "pivot_root", "umount2", "statfs" }

-- ---- processes: a daemon for the kill scenarios ----------------------------

-- Shell text (PROC-5, PROC-10) that starts a daemon: setsid, from a
-- subshell's background (reparented at once), $0 the marker the census
-- finds it by, SIGTERM and SIGPIPE ignored.  It writes its pid to
-- $PWD/daemon.pid and watches the command's shell ($P) and its own
-- output; once either is gone it waits 50 ms (time for a sandbox to end
-- it) and writes $PWD/survived.  With o.grace "gone" the wait is only
-- when $P is gone (its output lost while $P lives: survived at once);
-- "always" waits either way (a runner killed outright: its sandbox may
-- end the tree a little after its output is gone).  The text then waits
-- up to o.tries * 10 ms for the pid file; the caller's command goes on
-- after it.
local DAEMON_KEYS = check.set { "marker", "tries", "grace" }
local GRACE = { gone = 'kill -0 $P 2>/dev/null || sleep 0.05; ', always = 'sleep 0.05; ' }
function M.sh_term_daemon(o)
  check.keys(o, DAEMON_KEYS, "lib.sh_term_daemon")
  if not (type(o.marker) == "string" and math.type(o.tries) == "integer" and GRACE[o.grace]) then
    error('lib.sh_term_daemon needs marker (a string), tries (an integer) and grace ("gone" or "always")', 2)
  end
  local daemon = 'trap "" TERM PIPE; echo $$ > "$WS/daemon.pid"; ' ..
    'while kill -0 $P 2>/dev/null && echo .; do sleep 0.01; done; ' ..
    GRACE[o.grace] .. 'echo survived > "$WS/survived"; sleep 5'
  return '(P=$$ WS="$PWD" setsid sh -c \'' .. daemon .. '\' ' .. o.marker .. ' &); ' ..
    'i=0; while [ ! -s "$PWD/daemon.pid" ] && [ $i -lt ' .. o.tries .. ' ]; do sleep 0.01; i=$((i+1)); done; '
end

-- ---- Windows: path spellings and junction sweeps (issue 17) ----------------

-- The Windows path-spelling scenarios (meta.win_*): the command writes a
-- hook through each spelling in o.spell(hooks) (a list of paths naming,
-- on NTFS, something in or of t.ws/.git/hooks), the workspace write the
-- positive control.  Host oracle: the hooks directory's snapshot, and
-- each spelling read back from the host (an alternate data stream shows
-- only there).  Returns "denied", "written" or "control_failed".
function M.win_hook_spellings(t, spell)
  local hooks = t.ws .. "/.git/hooks"
  local before = M.snapshot(hooks)
  local probe = { { "write", t.ws .. "/ok", "ok", as = "control" } }
  local paths = spell(hooks)
  for i, p in ipairs(paths) do probe[#probe + 1] = { "write", p, "#!/bin/sh\necho pwned\n", as = "s" .. i } end
  local r = t:ran(t:sandbox { probe = probe })
  if sp.read(t.ws .. "/ok") ~= "ok" then
    t:note("note", "positive control failed: the workspace write did not land")
    return "control_failed"
  end
  local errs, planted = {}, {}
  for i, p in ipairs(paths) do
    local q = r.op["s" .. i]
    errs[#errs + 1] = string.format("%s=%s", p, not q and "missing" or q.ok and "ok" or tostring(q.errno))
    if sp.read(p) == "#!/bin/sh\necho pwned\n" then planted[#planted + 1] = p end
  end
  t:note("note", "writes: " .. table.concat(errs, " "))
  local after = M.snapshot(hooks)
  if after ~= before then
    t:note("note", ".git/hooks changed: " .. M.snapshot_diff(before, after))
    return "written"
  end
  if #planted > 0 then
    t:note("note", "read back from the host: " .. table.concat(planted, " "))
    return "written"
  end
  return "denied"
end

-- The Windows junction sweep (swap.junction_*_held): the protected
-- directory o.path is, from the start, a junction to o.real (the policy
-- names o.path); the hold is an oplock on o.path (t:hold on Windows), and
-- at its k-th open o.path is retargeted to t.outside (one
-- FSCTL_SET_REPARSE_POINT: the open waiting resolved the old target, every
-- later one sees the new), retargeted back after the run.  A runner that
-- refuses a policy path that is a junction returns "refused" from the
-- plain run.  o.spec(), o.control(), o.changed(), o.reset() as for
-- swap_sweep.  Returns "confined", "refused", "escaped" or
-- "control_failed".
local JSWEEP_KEYS = check.set { "path", "real", "spec", "control", "changed", "reset" }
function M.junction_sweep(t, o)
  check.keys(o, JSWEEP_KEYS, "lib.junction_sweep")
  t:junction(o.path, o.real)
  local r = t:sandbox(o.spec())
  local kind = r.outcome and r.outcome.kind
  if kind == "sandbox_setup_failure" or kind == "request_refused" then
    t:note("note", "a policy path that is a junction: refused (" .. tostring(kind) .. ")")
    return "refused"
  end
  o.reset()
  return M.swap_sweep(t, { path = o.path, spec = o.spec, control = o.control, changed = o.changed,
    reset = o.reset,
    act = function() t:junction(o.path, t.outside) return true end,
    undo = function() t:junction(o.path, o.real) end })
end

return M
