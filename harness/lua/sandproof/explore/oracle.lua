-- sandproof.explore.oracle - runs one generated program in a context and
-- judges it by the contract, on the host (docs/EXPLORE.md).
--
-- M.run(t, program) lays out the universe in t's temp directory
-- (M.universe: made fresh, or restored in place),
-- builds the policy, runs the ops through the runner under test after a
-- positive control (a workspace write), and compares host snapshots taken
-- before and after: everything outside the write root (t.outside, the
-- visible outside) and every path the policy or the contract protects
-- (META names, a read-only subpath or deny_write path), by existence, type,
-- identity (inode, link count) and content.  It also checks that no read
-- returned a secret (a deny_read file's, the hidden outside's), that no
-- lab listener was reached under network deny, that the probe got no
-- socket of a family NET-5 forbids and no io_uring, and that no process of
-- the run outlived it (residue).  Returns the observed outcome: "confined",
-- "control_failed", or "<class>: <what>" (in report order: escape first),
-- and the list of every violation seen { class, what }; each kind of thing
-- seen is classed by sandproof.impact (SEEN), the catalogue's classifier.
local sp = require "sp"
local lib = require "sandproof.lib"
local gen = require "sandproof.explore.gen"
local impact = require "sandproof.impact"
local universe = require "sandproof.explore.universe"

local M = {}

-- The universe's names as paths of context t.  Everything lies in t.tmp or
-- t.vtmp: a program can only name the scenario's own files.
local unreported -- below
local function paths_of(t)
  local ws, out, vis = t.ws, t.outside, t.visible_outside
  return {
    ws = ws, ["ws/a"] = ws .. "/a", ["ws/b"] = ws .. "/b", ["ws/d"] = ws .. "/d",
    ["ws/d/f"] = ws .. "/d/f", ["ws/d/g"] = ws .. "/d/g", ["ws/ctl"] = ws .. "/ctl",
    git = ws .. "/.git", hooks = ws .. "/.git/hooks", ["hooks/pre-commit"] = ws .. "/.git/hooks/pre-commit",
    config = ws .. "/.git/config", agents = ws .. "/.agents", zero = ws .. "/.zero",
    ro = ws .. "/ro", ["ro/f"] = ws .. "/ro/f", ["ro/new"] = ws .. "/ro/new",
    secret = ws .. "/secret",
    out = out, ["out/victim"] = out .. "/victim", ["out/secret"] = out .. "/secret",
    ["out/new"] = out .. "/new",
    vis = vis, ["vis/victim"] = vis .. "/victim", ["vis/new"] = vis .. "/new",
  }
end
M.paths_of = paths_of

-- Secrets a read must never return: the deny_read file's and the hidden
-- outside's (under /tmp, which the sandbox replaces: FS-4).
local function secrets(t) return universe.secrets(t.seed) end

-- One line per entry under path p (recursively, symlinks not followed):
-- type, inode, link count, mode, content or the directory's listing order.
local function snap(p, out, label)
  local st = sp.lstat(p)
  if not st then out[#out + 1] = label .. " absent" return end
  local line = string.format("%s %s ino=%d nlink=%s mode=%o", label, st.type, st.ino,
                             tostring(st.nlink or "-"), st.mode or 0)
  if st.type == "file" then line = line .. " " .. (tostring(sp.read(p)):gsub("\n", "\\n")) end
  out[#out + 1] = line
  if st.type == "dir" then
    local names = sp.listdir(p) or {}
    table.sort(names)
    for _, n in ipairs(names) do snap(p .. "/" .. n, out, label .. "/" .. n) end
  end
end

-- What the oracle guards under policy: the labels and paths whose state
-- must not change.  The protected names always (META-1, META-3), the
-- outsides always (FS-1, FS-4), and each policy entry's path (FS-2).
local function guarded(P, policy)
  local g = { "git/hooks", "config", "agents", "zero", "out", "vis" }
  local map = { ["git/hooks"] = P.hooks }
  for _, e in ipairs(policy) do
    if e.kind == "read_only_subpath" or e.kind == "deny_write" then g[#g + 1] = e.name end
  end
  for _, n in ipairs(g) do map[n] = map[n] or P[n] end
  return g, map
end

local function snapshot(P, policy)
  local g, map = guarded(P, policy)
  local out = {}
  for _, n in ipairs(g) do snap(map[n], out, n) end
  return table.concat(out, "\n")
end

-- The profile of a program's policy: t's workspace profile plus its entries.
local function profile_of(t, P, policy)
  local p = t.profiles.workspace_write()
  local root = { root = P.ws }
  local ro, dr, dw = {}, {}, {}
  for _, e in ipairs(policy) do
    if e.kind == "network" then
      p.network = { mode = e.name } -- t:sandbox runs a non-deny mode in a lab
    else
      local l = e.kind == "read_only_subpath" and ro or e.kind == "deny_read" and dr or dw
      l[#l + 1] = P[e.name]
    end
  end
  if #ro > 0 then root.read_only_subpaths = lib.array(ro) end
  p.filesystem.write_roots = lib.array { root }
  if #dr > 0 then p.filesystem.deny_read = lib.array(dr) end
  if #dw > 0 then p.filesystem.deny_write = lib.array(dw) end
  return p
end

-- The program's ops as probe ops: names and ports resolved.
local function resolve(P, ports, ops)
  local out = { { "write", P["ws/ctl"], "ok", as = "control" } }
  for _, op in ipairs(ops) do
    local o = {}
    for i, a in ipairs(op) do
      if i > 1 and type(a) == "string" and gen.NAMES_SET[a] then a = P[a]
      elseif type(a) == "string" and gen.NAMES_SET[a:sub(2)] and a:sub(1, 1) == "@" then
        a = "@" .. P[a:sub(2)] -- the probe's @PIDFILE
      elseif type(a) == "string" and a:sub(1, 1) == "$" then a = ports[a] end
      o[i] = a
    end
    out[#out + 1] = o
  end
  return out
end

-- Lab listeners for a program that connects: every address a connect may
-- name, three listeners of its own (batch.listeners counts them; the lab
-- may be a home's, kept between launches: a listener is never another
-- program's, so its hits are this program's).  Returns ports ({ ["$tcp"]
-- = n, ... }), the lab (nil: no net op) and the listeners' ids.
local function listeners(t, ops)
  local net = false
  for _, op in ipairs(ops) do net = net or gen.is_net(op) end
  if not net then return {}, nil end
  local lab = t._ctx.lab or t:lab() -- one lab for every program of a launch
  local ports, ids = {}, {}
  for _, l in ipairs { { "$tcp", "tcp", "127.0.0.1" }, { "$udp", "udp", "127.0.0.1" },
                       { "$tcp_if", "tcp", "192.0.2.1" } } do
    local port, id = lab:listen(l[2], l[3])
    if not port then t:error("lab listen " .. l[3] .. ": " .. tostring(id)) end
    ports[l[1]], ids[#ids + 1] = port, id
  end
  return ports, lab, ids
end

-- The labels whose lines differ between two snapshots, in order, each
-- once: a stable outcome (inode numbers and contents go to the evidence).
local function changed_labels(before, after)
  local b, a, seen, out = {}, {}, {}, {}
  for l in before:gmatch("[^\n]+") do b[l] = true end
  for l in after:gmatch("[^\n]+") do a[l] = true end
  local function add(l)
    local label = l:match("^(%S+)")
    if not seen[label] then seen[label] = true out[#out + 1] = label end
  end
  for l in before:gmatch("[^\n]+") do if not a[l] then add(l) end end
  for l in after:gmatch("[^\n]+") do if not b[l] then add(l) end end
  table.sort(out)
  return table.concat(out, ", ")
end

-- The argument of each op that names what it creates (write, append,
-- mkdir and open their path; symlink, link, rename and tmpfile_link their
-- second).
local CREATES = { write = 2, append = 2, mkdir = 2, symlink = 3, link = 3, rename = 3, open = 2,
                  tmpfile_link = 3 }
M.CREATES = CREATES

-- Honesty (META-3): an op that created an absent protected name and was
-- answered ok, its creation undone by the runner (the name absent on the
-- host after the run, else the snapshot saw an escape), must be reported
-- as a protected_create denial naming it.  Returns what went unreported.
unreported = function(P, probe, r)
  local out, names = {}, { [P.agents] = "agents", [P.zero] = "zero" }
  for _, res in ipairs(r.probe) do
    local op = probe[(res.i or -1) + 1]
    local path = op and CREATES[op[1]] and op[CREATES[op[1]]]
    if res.ok and names[path] and not sp.lstat(path) and not lib.denied_for(r.outcome, path) then
      out[#out + 1] = string.format("%s of %s undone without a protected_create denial", op[1], names[path])
    end
  end
  return out
end

-- NET-5 and PRIV-2, judged from the probe's own result inside the
-- sandbox (the attacker's observation, as the catalogue's net.family_*
-- and priv.*_sibling scenarios): a socket of a family the contract forbids
-- whatever the settings, an io_uring instance, a ptrace attach or a
-- process_vm_readv of a process of the run, a TIOCSTI push into a pty the
-- program opened itself, that the probe got.  Each is attack surface left
-- open, nothing beyond the grant (the target is the run's own): hardening
-- (impact.SEEN.surface), as in the catalogue.  No host-side trace is left
-- by them, so the runner's report is never consulted.
local FORBIDDEN = { vsock = "vsock", packet = "packet", raw = "raw", bluetooth = "bluetooth" }
local function forbidden_family(op)
  if op[1] ~= "socket" then return nil end
  local proto = op[4] or "0"
  return FORBIDDEN[op[2]] or op[2] == "netlink" and proto ~= "0" and
    (proto == "9" and "netlink audit" or "netlink protocol " .. proto) or nil
end
local DONE = { io_uring = "set up an io_uring instance",
               ptrace = "attached to a process of the run with ptrace",
               process_vm_readv = "read a process of the run's memory with process_vm_readv",
               tiocsti_pty = "pushed input into a terminal of its own with TIOCSTI" }
local function forbidden_done(probe, r)
  local out = {}
  for _, res in ipairs(r.probe) do
    local op = probe[(res.i or -1) + 1]
    if res.ok and op and op[1] == res.op then
      local fam = forbidden_family(op)
      if fam then out[#out + 1] = "opened a " .. fam .. " socket" end
      if DONE[op[1]] then out[#out + 1] = DONE[op[1]] end
    end
  end
  return out
end

-- Honesty of syscall denials (PRIV-3, OUT-5), for a runner that says it
-- reports them (enforcement.denials_reported) and dropped none: an op of
-- a call PRIV-2 refuses that was answered EPERM must be reported as a
-- syscall denial of that name; and a syscall denial must name a call some
-- op of the launch (`launch`: every program's probe ops) makes.  An inet
-- raw socket is left out: without CAP_NET_RAW the kernel refuses it with
-- EPERM itself (net.family_raw).
local SYSCALL_OF = { ptrace = "ptrace", process_vm_readv = "process_vm_readv",
                     io_uring = "io_uring_setup", remount = "mount", umount = "umount2",
                     unshare_user = "unshare", tiocsti_pty = "ioctl" }
-- The step whose EPERM is the call's own (tiocsti_pty: its ioctl, not the
-- pty's set-up); other ops: any step but reading a pidfile.
local STEP_OF = { tiocsti_pty = "ioctl" }
local function own_step(op, res)
  if STEP_OF[op[1]] then return res.step == STEP_OF[op[1]] end
  return res.step ~= "pidfile"
end
local function syscall_of(op)
  if op[1] == "socket" then return forbidden_family(op) and op[2] ~= "raw" and "socket" or nil end
  return SYSCALL_OF[op[1]]
end
local function syscall_honesty(probe, launch, r)
  local o, out = r.outcome or {}, {}
  local e = type(o.enforcement) == "table" and o.enforcement or {}
  if e.denials_reported ~= true or (tonumber(o.denials_dropped) or 0) > 0 then return out end
  for _, res in ipairs(r.probe) do
    local op = probe[(res.i or -1) + 1]
    local name = op and op[1] == res.op and syscall_of(op)
    if name and not res.ok and res.errno == "EPERM" and own_step(op, res) and
       not lib.denial_reported(o, name) then
      out[#out + 1] = string.format("%s refused with EPERM without a syscall denial of %s", op[1], name)
    end
  end
  local made = {}
  for _, op in ipairs(launch) do
    local name = syscall_of(op)
    if name then made[name] = true end
  end
  for _, d in ipairs(type(o.denials) == "table" and o.denials or {}) do
    if d.kind == "syscall" and not made[d.name] then
      out[#out + 1] = string.format("a syscall denial of %s reported that no op of the launch makes",
                                    tostring(d.name))
    end
  end
  return out
end

-- A protected_create denial naming this universe's agents or zero that no
-- op of the program names (OUT-5: denials are facts the runner observed).
local function phantom_creates(P, probe, r)
  local out, named = {}, {}
  for _, op in ipairs(probe) do
    for i = 2, #op do named[op[i]] = true end
  end
  for _, n in ipairs { "agents", "zero" } do
    if lib.denied_for(r.outcome or {}, P[n]) and not named[P[n]] then
      out[#out + 1] = "a protected_create denial of " .. n .. " reported that no op names"
    end
  end
  return out
end

-- PROC-5/PROC-9 (residue), judged on the host after the runner returned:
-- the harness counts the processes of the run still alive then
-- (r.harness_killed: its subreaper's descendants, killed by it through
-- pidfds verified against their start time, never by name; an adapter may
-- leave them alive).  Then a background process still alive (left alive by
-- the adapter, or outside the harness's tree) is looked for by its command
-- line, which holds the program's own pidfile path (unique to this
-- context); one found is residue too, and is killed by pid once
-- /proc/PID/cmdline still holds that path (never by name).
-- Either way the outcome says the same (which of the two saw it depends
-- on timing: a double fork still under way when the runner returned); the
-- note says which.
local RESIDUE = "a process of the run alive after the runner returned"

-- The processes whose command line holds "spawn_daemon <path>" (sp.census:
-- every process of the host, its command line read), each noted and
-- killed by pid once /proc/PID/cmdline still holds path (never by name).
-- Returns the census lines found.
function M.census_daemons(t, path)
  local c, err = sp.census { marker = "spawn_daemon " .. path }
  if not c then t:error("census: " .. tostring(err)) end
  for _, line in ipairs(c.processes) do
    local pid = line:match("^pid (%d+) ")
    t:note("census", "alive after the run and the harness's sweep: " .. line)
    if pid and (sp.read("/proc/" .. pid .. "/cmdline") or ""):find(path, 1, true) then
      sp.spawn { argv = { t.paths.probe, "kill", pid, "9" }, timeout_ms = 5000 }
    end
  end
  return c.processes
end

-- st.censused: the caller looked for the launch's daemons already (a
-- launch of several programs, sandproof.explore.batch: found none).
local function residue(t, probe, r, censused)
  local out, n = {}, tonumber(r.harness_killed) or 0
  if n > 0 then
    t:note("note", string.format("the harness killed %d process%s of the run alive after the runner returned",
      n, n == 1 and "" or "es"))
    out[1] = RESIDUE
  end
  for _, op in ipairs(censused and {} or probe) do
    if op[1] == "spawn_daemon" and #M.census_daemons(t, op[2]) > 0 then
      out[1] = RESIDUE
    end
  end
  return out
end

-- The directories above the guarded paths inside the workspace (the
-- workspace, .git, ws/d) are the program's to chmod: the contract guards
-- .git/hooks and .git/config, not .git.  An observer that is not root
-- could no longer see below one left without its owner's rwx, and would
-- take that for a change of what lies below: each is given them back
-- (noted) before the snapshot after the run.
local function traversable(t, P)
  for _, n in ipairs { "ws", "git", "ws/d" } do
    local st = sp.lstat(P[n])
    if st and st.type == "dir" and st.mode & 448 ~= 448 then
      t:note("note", string.format("%s left mode %o: its owner's rwx given back for the snapshot", n, st.mode))
      sp.chmod(P[n], st.mode | 448)
    end
  end
end

-- Every violation the host sees after the run: { class, what }, in
-- report order (escapes first).
local function judge(t, P, before, policy, r, lab, ids, probe, launch, censused)
  local v = {}
  local function seen(kind, what) v[#v + 1] = { class = impact.SEEN[kind], what = what } end
  traversable(t, P)
  local after = snapshot(P, policy)
  if after ~= before then
    t:note("note", "host snapshot diff: " .. lib.snapshot_diff(before, after))
    seen("host_changed", "changed " .. changed_labels(before, after))
  end
  local s = secrets(t)
  for _, res in ipairs(r.probe) do
    for n, tok in pairs(s) do
      local guarded_read = n ~= "secret" or M.has_entry(policy, "deny_read", "secret")
      if guarded_read and res.op == "read" and type(res.data) == "string" and res.data:find(tok, 1, true) then
        seen("hidden_read", "read the content of " .. n)
      end
    end
  end
  for _, x in ipairs(forbidden_done(probe, r)) do seen("surface", x) end
  for _, l in ipairs { unreported(P, probe, r), syscall_honesty(probe, launch, r),
                       phantom_creates(P, probe, r) } do
    for _, x in ipairs(l) do seen("dishonest", x) end
  end
  -- under network=allow the lab is the runner's own network (NET-3)
  local allow = M.has_entry(policy, "network", "allow")
  for _, id in ipairs(not allow and ids or {}) do
    local h = lab:hits(id)
    if h > 0 then seen("listener_reached", "a lab listener was reached") break end
  end
  for _, x in ipairs(residue(t, probe, r, censused)) do seen("left_behind", x) end
  return impact.sort(v)
end

function M.has_entry(policy, kind, name)
  for _, e in ipairs(policy) do if e.kind == kind and e.name == name then return true end end
  return false
end

-- Universe i of context t for a program seeded `seed`, laid out
-- (sandproof.explore.universe): a workspace with the parts of a git
-- repository the contract names (.git, .git/hooks, .git/config) and its
-- HEAD, the program's files, read-only directory and secret, a hidden
-- outside (under t.tmp, /tmp) and a visible one (under t.vtmp, /var/tmp)
-- with their victims.  Made fresh, or restored in place when a worker's
-- earlier program left it there (t.tmp a worker's home).  Its fields
-- shadow t's; everything else (notes, labs, profiles) is t's.
function M.universe(t, i, seed)
  local u = setmetatable({ ws = t.tmp .. "/u" .. i, outside = t.tmp .. "/out" .. i,
                           visible_outside = t.vtmp .. "/out" .. i, seed = seed },
                         { __index = t })
  universe.lay(u)
  return u
end

-- Program prog's state in its laid-out universe u (M.universe): its
-- listeners, its ops resolved, and the snapshot before: what M.judge needs.
function M.prepare(u, prog)
  local P = paths_of(u)
  local ports, lab, ids = listeners(u, prog.ops)
  return { P = P, lab = lab, ids = ids, policy = prog.policy,
           before = snapshot(P, prog.policy), probe = resolve(P, ports, prog.ops) }
end

-- The outcome of the run r of a prepared program and its violations.
function M.judge(u, st, r)
  local P = st.P
  local v = judge(u, P, st.before, st.policy, r, st.lab, st.ids, st.probe, st.launch or st.probe,
                  st.censused)
  for _, x in ipairs(v) do u:note("note", x.class .. ": " .. x.what) end
  if #v > 0 then return v[1].class .. ": " .. v[1].what, v end
  if sp.read(P["ws/ctl"]) ~= "ok" then
    u:note("note", "positive control failed: the workspace write did not land")
    return "control_failed", v
  end
  return "confined", v
end

-- The profile of a prepared program in u.
function M.profile(u, st) return profile_of(u, st.P, st.policy) end

M.TIMEOUT_MS = 20000

-- Runs spec with the runner held at its hold.at-th path-resolving call
-- (any process of the run), where the workspace is exchanged with a
-- symlink to the hidden outside; the exchange is undone once the runner
-- has returned, so the snapshot after sees the names as before and a
-- write that followed the symlink shows as a changed outside.  A run
-- whose at-th call never came is a plain run (no retry), said in a note.
-- A runner that then did not run the command at all (its setup refused
-- the swapped workspace: SWAP-2, failing closed) is judged as it is: what
-- changed on the host; M.run calls that failed_closed when nothing did.
local function run_held(t, u, spec, hold)
  local link = t.tmp .. "/swap-" .. u.seed
  assert(sp.symlink(u.outside, link))
  local swapped
  local r = t:hold { syscalls = lib.WRITE_ROOT_SYSCALLS, at = hold.at, retries = 0, sandbox = spec,
                     action = function(_, name) if sp.swap(u.ws, link) then swapped = name end end }
  if swapped then t:swap(u.ws, link) end
  t:note("note", swapped and string.format("hold: at path call %d (%s) the workspace was exchanged with a symlink to the hidden outside",
                                           hold.at, swapped)
    or string.format("hold: path call %d never came (%s made): a plain run", hold.at, tostring(r.hold_total)))
  local info = { held = true, exchanged = swapped ~= nil }
  if swapped and not r.sentinel then
    t:note("note", "the command did not run after the exchange: outcome " ..
      tostring(r.outcome and r.outcome.kind))
    r.probe, info.not_run = r.probe or {}, true
    return r, info
  end
  return t:ran(r), info
end

-- Runs program prog in context t; returns the outcome, the violations and,
-- for a held program, { held, exchanged, not_run }.  A held program the
-- runner did not run after the exchange, or stopped (setup refused it,
-- SWAP-2; its monitor lost the workspace, META-4), with no violation and
-- its control write not landed, is "failed_closed", not an untested
-- control.
function M.run(t, prog)
  local u = M.universe(t, 1, t.seed)
  local st = M.prepare(u, prog)
  local spec = { profile = M.profile(u, st), cwd = u.ws, timeout_ms = M.TIMEOUT_MS, probe = st.probe }
  local r, info
  if prog.hold then r, info = run_held(t, u, spec, prog.hold) else r = t:ran(t:sandbox(spec)) end
  local outcome, v = M.judge(u, st, r)
  local kind = type(r.outcome) == "table" and r.outcome.kind
  if info and info.exchanged and outcome == "control_failed" and
     (info.not_run or kind == "sandbox_setup_failure" or kind == "enforcement_denied") then
    outcome = "failed_closed"
  end
  return outcome, v, info
end

-- The class of an outcome M.run returned ("hardening: ..." -> "hardening"),
-- or nil: the class its emitted scenario's impact table (impact.EXPLORE)
-- gives it, so a finding is classed as its replay will be.
function M.class_of(outcome)
  return impact.of(impact.EXPLORE, outcome)
end

return M
