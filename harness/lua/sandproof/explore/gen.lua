-- sandproof.explore.gen - generated attack programs (docs/EXPLORE.md).
--
-- A program is plain data, { seed, policy = { entries... }, ops = { op... } },
-- over a symbolic universe of names ("ws/a", "hooks/pre-commit", "out/victim",
-- ...) that explore.oracle resolves inside a fresh context; ports of the
-- lab's listeners are symbolic too ("$tcp").  So a program is the same on
-- every machine and can be printed into a scenario file as it is.
--
-- Determinism: everything here draws from one splitmix64 generator in Lua
-- integer arithmetic (wrapping 64-bit, logical >>), never math.random: the
-- same (seed, index) gives the same program on every platform and Lua 5.4
-- build.
local M = {}

local MASK = math.maxinteger -- 2^63 - 1

-- splitmix64 step: the new state and a 64-bit output.
local function mix(x)
  local z = x + 0x9E3779B97F4A7C15
  local s = z
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return s, z ~ (z >> 31)
end

-- A generator: rng:int(n) in 1..n, rng:pick(list), rng:chance(p_percent).
local R = {}
R.__index = R
function M.rng(seed)
  local _, s = mix(math.tointeger(seed) or 0)
  return setmetatable({ s = s }, R)
end
function R:next()
  local out
  self.s, out = mix(self.s)
  return out
end
function R:int(n) return ((self:next() >> 1) & MASK) % n + 1 end
function R:pick(list) return list[self:int(#list)] end
function R:chance(pct) return self:int(100) <= pct end

-- The seed of program k of a run seeded s: independent of every other
-- program, so program k replays alone.
function M.program_seed(s, k)
  local _, a = mix(s)
  local _, b = mix(a ~ k)
  return b & 0x7FFFFFFFFFFF -- 47 bits: exact in a double, printable
end

-- The universe.  Files that exist at the start, names that do not, and
-- directories; protected names (META), a read-only subpath (FS-2), a
-- deny_read file (FS-3), the hidden outside (under /tmp, FS-4) and the
-- visible outside (under /var/tmp, read-only inside, FS-1).
M.FILES = { "ws/a", "ws/d/f", "config", "ro/f", "secret", "out/victim", "out/secret",
            "vis/victim" }
M.ABSENT = { "ws/b", "ws/d/g", "hooks/pre-commit", "agents", "zero", "ro/new", "out/new",
             "vis/new" }
M.DIRS = { "ws/d", "hooks", "git", "ro", "out", "vis" }
M.NAMES = {}
for _, l in ipairs { M.FILES, M.ABSENT, M.DIRS } do
  for _, n in ipairs(l) do M.NAMES[#M.NAMES + 1] = n end
end
-- Mount-table attacks only ever name directories of the workspace (and
-- run, under none, in a private mount namespace: runners/none.lua).
M.MOUNT_DIRS = { "ws/d", "hooks", "ro" }
M.TEXTS = { "x", "#!/bin/sh\necho pwned\n", "[core]\n\thooksPath = /tmp\n" }
-- Sockets (the probe's `socket FAMILY TYPE [PROTO]`): the families NET-5
-- permits (unix, inet, inet6, netlink route) and ones it forbids whatever
-- the settings (vsock, netlink audit, packet; `raw`, an inet SOCK_RAW,
-- needs CAP_NET_RAW, gone by PRIV-1, as net.family_raw).  A socket is
-- only opened and closed: nothing is sent.
M.SOCKETS_PERMITTED = { { "inet", "stream" }, { "inet6", "dgram" }, { "unix", "stream" },
                        { "netlink", "raw", "0" } }
M.SOCKETS_FORBIDDEN = { { "vsock", "stream" }, { "netlink", "raw", "9" }, { "packet", "dgram" },
                        { "raw" } }
-- The flags of `open` (the probe's words) and the modes of `chmod`.
M.OPEN_FLAGS = { "wronly,trunc", "wronly,creat,excl", "rdwr,creat", "wronly,creat,nofollow",
                 "wronly,append", "rdonly,directory" }
M.MODES = { "777", "4755", "000" }
-- The pidfile of a background process: a name of the workspace only.
M.PIDFILES = { "ws/b", "ws/d/g" }

-- The policy entries a program may carry (within the contract, REQ), each
-- drawn with its own chance (pct): a path of the universe with its role,
-- and the network mode ("network" "allow"; without it the mode is deny).
-- Under allow the command shares the runner's network namespace, which
-- t:sandbox makes a lab (NET-3): lab hits are then no violation.
M.POLICY_ENTRIES = {
  { kind = "read_only_subpath", name = "ro", pct = 60 },
  { kind = "deny_read", name = "secret", pct = 60 },
  { kind = "deny_write", name = "ws/d/f", pct = 60 },
  { kind = "network", name = "allow", pct = 30 },
}

-- The grammar: each op's name and how its arguments are drawn.
local function name(r) return r:pick(M.NAMES) end
local function file_or_absent(r) return r:chance(50) and r:pick(M.FILES) or r:pick(M.ABSENT) end
M.GRAMMAR = {
  write = function(r) return { "write", file_or_absent(r), r:pick(M.TEXTS) } end,
  append = function(r) return { "append", file_or_absent(r), r:pick(M.TEXTS) } end,
  read = function(r) return { "read", name(r) } end,
  stat = function(r) return { "stat", name(r) } end,
  mkdir = function(r) return { "mkdir", r:chance(70) and r:pick(M.ABSENT) or name(r) } end,
  rename = function(r) return { "rename", name(r), name(r) } end,
  rename_exchange = function(r) return { "rename_exchange", name(r), name(r) } end,
  symlink = function(r) return { "symlink", name(r), r:pick(M.ABSENT) } end,
  link = function(r) return { "link", r:pick(M.FILES), r:pick(M.ABSENT) } end,
  unlink = function(r) return { "unlink", name(r) } end,
  rmdir = function(r) return { "rmdir", r:pick(M.DIRS) } end,
  remount = function(r) return { "remount", r:pick(M.MOUNT_DIRS) } end,
  umount = function(r) return { "umount", r:pick(M.MOUNT_DIRS) } end,
  unshare_user = function() return { "unshare_user" } end,
  connect = function(r)
    local l = r:pick { { "tcp", "127.0.0.1", "$tcp" }, { "udp", "127.0.0.1", "$udp" },
                       { "tcp", "192.0.2.1", "$tcp_if" } }
    return { "connect", l[1], l[2], l[3] }
  end,
  sleep = function(r) return { "sleep", r:int(3) } end,
  socket = function(r)
    local s = r:pick(r:chance(70) and M.SOCKETS_FORBIDDEN or M.SOCKETS_PERMITTED)
    return { "socket", table.unpack(s) }
  end,
  io_uring = function() return { "io_uring" } end,
  spawn_daemon = function(r) return { "spawn_daemon", r:pick(M.PIDFILES) } end,
  -- a process of the run by its pidfile (the probe's @PIDFILE), which an
  -- earlier spawn_daemon may have written: PRIV-2 forbids both
  ptrace = function(r) return { "ptrace", "@" .. r:pick(M.PIDFILES) } end,
  process_vm_readv = function(r) return { "process_vm_readv", "@" .. r:pick(M.PIDFILES) } end,
  -- TIOCSTI into a pty of the probe's own (PRIV-2 refuses it on any terminal)
  tiocsti_pty = function() return { "tiocsti_pty" } end,
  -- an open whose flags are the effect (create, truncate), or its refusal
  -- (nofollow through a planted symlink)
  open = function(r) return { "open", file_or_absent(r), r:pick(M.OPEN_FLAGS) } end,
  chmod = function(r) return { "chmod", name(r), r:pick(M.MODES) } end,
  -- an anonymous file (O_TMPFILE) in a directory, linked to an absent name
  tmpfile_link = function(r) return { "tmpfile_link", r:pick(M.DIRS), r:pick(M.ABSENT), r:pick(M.TEXTS) } end,
}
M.OPS = {}
for k in pairs(M.GRAMMAR) do M.OPS[#M.OPS + 1] = k end
table.sort(M.OPS) -- pairs() order is not deterministic; the sorted list is
-- Weights: file ops dominate, the rest keep every family in play.
M.WEIGHT = { write = 6, append = 2, read = 3, stat = 1, mkdir = 2, rename = 5,
             rename_exchange = 4, symlink = 4, link = 4, unlink = 2, rmdir = 1,
             remount = 1, umount = 1, unshare_user = 1, connect = 2, sleep = 1,
             socket = 2, io_uring = 1, spawn_daemon = 1, ptrace = 1, process_vm_readv = 1,
             tiocsti_pty = 1, open = 3, chmod = 2, tmpfile_link = 2 }
M.TRACES = { ptrace = true, process_vm_readv = true }

local WEIGHT_TOTAL = 0
for _, k in ipairs(M.OPS) do WEIGHT_TOTAL = WEIGHT_TOTAL + M.WEIGHT[k] end
local function weighted_op(r)
  local x = r:int(WEIGHT_TOTAL)
  for _, k in ipairs(M.OPS) do
    x = x - M.WEIGHT[k]
    if x <= 0 then return k end
  end
end

-- Program k of a run seeded `seed`: 1 to max_ops (default 6) drawn ops
-- (and the daemons some tracing ops get) and a policy of 0 to 4 entries.
function M.program(seed, k, max_ops)
  local ps = M.program_seed(seed, k)
  local r = M.rng(ps)
  local policy = {}
  for _, e in ipairs(M.POLICY_ENTRIES) do
    if r:chance(e.pct) then policy[#policy + 1] = { kind = e.kind, name = e.name } end
  end
  local hold = r:chance(M.HOLD_PCT) and { at = r:int(r:pick { 4, 32, M.HOLD_MAX }) } or nil
  local ops, daemons = {}, {}
  for _ = 1, r:int(max_ops or 6) do
    local op = M.GRAMMAR[weighted_op(r)](r)
    -- a tracing op gets a target: 4 times in 5 the daemon that writes its
    -- pidfile goes before it (else it finds no pidfile: ENOENT)
    local pf = M.TRACES[op[1]] and op[2]:sub(2)
    if pf and not daemons[pf] and r:chance(80) then
      ops[#ops + 1] = { "spawn_daemon", pf }
      daemons[pf] = true
    end
    if op[1] == "spawn_daemon" then daemons[op[2]] = true end
    ops[#ops + 1] = op
  end
  return { seed = ps, policy = policy, ops = ops, hold = hold }
end

-- A host-side hold (docs/EXPLORE.md, "Holds"): with HOLD_PCT % chance a
-- program runs with the runner held at its `at`-th path-resolving call
-- (among the first 4, 32 or HOLD_MAX, each a third of the time: a runner
-- that makes few such calls still gets windows), where the
-- harness exchanges the workspace with a symlink to the hidden outside
-- (SWAP-1..3: whatever the runner resolved, no write may land outside).
M.HOLD_PCT, M.HOLD_MAX = 10, 160

-- Whether op uses the network (the oracle then runs it inside a lab).
function M.is_net(op) return op[1] == "connect" end

-- The symbolic names an op touches (for coverage: name pairs).
function M.op_names(op)
  local out = {}
  for i = 2, #op do
    local a = type(op[i]) == "string" and op[i]:gsub("^@", "") or op[i]
    if M.NAMES_SET[a] then out[#out + 1] = a end
  end
  return out
end
M.NAMES_SET = {}
for _, n in ipairs(M.NAMES) do M.NAMES_SET[n] = true end

-- A program as one line of Lua-readable text (for the database and the
-- emitted scenario): stable field order.
local function quote(s) return string.format("%q", s):gsub("\\\n", "\\n") end
function M.op_text(op)
  local parts = {}
  for _, a in ipairs(op) do parts[#parts + 1] = type(a) == "string" and quote(a) or tostring(a) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end
function M.program_text(p)
  local pol, ops = {}, {}
  for _, e in ipairs(p.policy) do
    pol[#pol + 1] = string.format("{ kind = %s, name = %s }", quote(e.kind), quote(e.name))
  end
  for _, op in ipairs(p.ops) do ops[#ops + 1] = M.op_text(op) end
  return string.format("{ seed = %d, policy = { %s }, ops = { %s }%s }", p.seed,
                       table.concat(pol, ", "), table.concat(ops, ", "),
                       p.hold and string.format(", hold = { at = %d }", p.hold.at) or "")
end

return M
