-- sandproof.context - the `t` a scenario's run(t) receives.
--
-- One context per (scenario, runner) pair, in its own process.  It owns a
-- fresh temp directory holding the workspace (a git repository with
-- .git/hooks and .git/config) and an "outside" sibling with a victim file;
-- scenarios only ever target paths in there.  finish() ends every process,
-- swapper and lab the context started and removes the directory.
local sp = require "sp"
local check = require "sandproof.check"

local M = {}
local T = {}
T.__index = T

-- What an adapter may or may not be asked (its `capabilities` table, every
-- one declared true or false): the name, and what a runner lacking it has
-- no way to do.  The engine refuses an adapter that declares anything else
-- or misses one, and a scenario `needs` only names from here.
M.CAPABILITIES = {
  gc = "runtime-root eviction (gc)",
  doctor = "host check (doctor)",
  runtime_roots = "runtime roots (profile.runtime)",
  raw_request = "contract request to take as raw text (raw_request)",
  limits = "resource limits (profile.limits)",
  output_limit = "output bound (output_limit_bytes)",
  block_unix_sockets = "way to block unix sockets (block_unix_sockets)",
  hold = "way to start under the harness's hold filter (t:hold)",
  fault = "way to start under the harness's fault filter (t:fault)",
  sessions = "retained interactive sessions (t:session, sandproof-ref serve's protocol)",
}

-- A table that encodes as a JSON array even when empty.
function M.array(t) return setmetatable(t or {}, { __jsonarray = true }) end
local array = M.array

local function git_workspace(ws)
  assert(sp.mkdir(ws))
  local r = sp.spawn { argv = { "git", "init", "-q", ws }, timeout_ms = 10000 }
  if not (r and r.code == 0 and sp.exists(ws .. "/.git/config")) then
    -- no git on the host: lay out the parts the contract cares about
    sp.mkdir(ws .. "/.git")
    sp.write(ws .. "/.git/config", "[core]\n\trepositoryformatversion = 0\n")
  end
  if not sp.exists(ws .. "/.git/hooks") then sp.mkdir(ws .. "/.git/hooks") end
  sp.write(ws .. "/README", "workspace\n")
end

-- A context for scenario sc against the runner of spec (a canonical spec,
-- sandproof.runners): its adapter loaded and checked here, or given as
-- opts.adapter with its name opts.runner_name (a caller running many
-- contexts against one runner loads it once).
function M.new(sc, spec, opts)
  local adapter, runner_name = opts.adapter, opts.runner_name or spec
  if not adapter then
    adapter, runner_name = require("sandproof.runners").load(spec, opts.paths)
    if not adapter then return nil, runner_name end
  end
  -- Named with our pid: if this process dies before finish(), the harness
  -- parent removes sandproof-<pid>-* in both sp.temp_roots (Linux: /tmp
  -- and /var/tmp; macOS: /private/tmp and /private/var/tmp).
  local safe = sp.getpid() .. "-" .. sc.id:gsub("[^%w]", "_")
  -- opts.home (sandproof explore's worker): temp directories the caller
  -- owns, { tmp, vtmp }, lent for this context's life; finish() leaves them
  local home = opts.bare and opts.home
  local tmp, err = home and home.tmp or sp.mkdtemp(sp.temp_roots[1] .. "/sandproof-" .. safe .. "-")
  if not tmp then return nil, err end
  local t = setmetatable({
    sc = sc, id = sc.id, os = sp.os, tmp = tmp, ws = tmp .. "/ws",
    outside = tmp .. "/outside", runner = adapter, runner_name = runner_name,
    seed = opts.seed or 1, paths = opts.paths, evidence = {},
    power = { attempts = 0, windows = 0, min = 0 }, _labs = {}, _swappers = {},
    _volumes = {}, _ctx = {}, _lent = home and true or nil, _lend_lab = opts.lend_lab,
  }, T)
  -- opts.bare (sandproof explore, which lays out universes of its own):
  -- only the temp directories, no workspace or outsides in them
  if opts.bare then
    t.ws, t.outside = nil, nil
    t.vtmp = home and home.vtmp or sp.mkdtemp(sp.temp_roots[2] .. "/sandproof-" .. safe .. "-")
    if not t.vtmp then sp.rmtree(tmp) return nil, "no temp directory under " .. sp.temp_roots[2] end
    t.profiles = M.profiles(t)
    return t
  end
  git_workspace(t.ws)
  assert(sp.mkdir(t.outside))
  sp.write(t.outside .. "/victim", "untouched\n")
  -- A second "outside" that the sandbox can SEE (read-only): the sandbox
  -- replaces /tmp, so t.outside is invisible inside it; t.visible_outside
  -- lives under /var/tmp, which stays part of the read-only host view.
  local vt = sp.mkdtemp(sp.temp_roots[2] .. "/sandproof-" .. safe .. "-")
  if vt then
    t.vtmp = vt
    t.visible_outside = vt .. "/outside"
    assert(sp.mkdir(t.visible_outside))
    sp.write(t.visible_outside .. "/victim", "untouched\n")
  end
  t.profiles = M.profiles(t)
  math.randomseed(t.seed)
  return t
end

-- Profiles in contract form (docs/CONTRACT.md, REQ).
function M.profiles(t)
  return {
    workspace_write = function(extra)
      local p = {
        filesystem = { kind = "restricted", read_roots = array { "/" },
                       write_roots = array { { root = t.ws } }, allow_temp = true },
        network = { mode = "deny" },
      }
      for k, v in pairs(extra or {}) do p[k] = v end
      return p
    end,
    read_only = function()
      return { filesystem = { kind = "restricted", read_roots = array { "/" },
                              write_roots = array {}, allow_temp = false },
               network = { mode = "deny" } }
    end,
  }
end

-- ---- evidence and verdict helpers ------------------------------------------

local NOTE_KINDS = check.set { "note", "probe", "stderr", "outcome", "census", "traceback" }
function T:note(kind, body)
  if not NOTE_KINDS[kind] then error(string.format('t:note: unknown evidence kind "%s"', tostring(kind)), 2) end
  if #self.evidence < 256 then
    self.evidence[#self.evidence + 1] = { kind = kind, body = tostring(body):sub(1, 8192) }
  end
end

function T:skip(reason) error({ sp_skip = reason }, 0) end
function T:unsupported(reason) error({ sp_unsupported = reason }, 0) end
-- A harness or setup fault (a fixture that could not be made, a probe that
-- stopped early): verdict error, msg recorded as the reason.
function T:error(msg) error({ sp_error = tostring(msg) }, 0) end

-- The reason the runner under test lacks capability cap, or nil when it
-- has it (adapter.capabilities; adapter.reasons may say why not).
function T:lacks(cap)
  if not M.CAPABILITIES[cap] then error(string.format('t:lacks: unknown capability "%s"', tostring(cap)), 2) end
  if self.runner.capabilities[cap] == true then return nil end
  local why = (self.runner.reasons or {})[cap]
  return string.format("the %s runner has no %s%s", self.runner_name, M.CAPABILITIES[cap],
    why and (": " .. why) or "")
end

-- Verdict unsupported unless the runner under test has capability cap.
function T:need(cap)
  local why = self:lacks(cap)
  if why then self:unsupported(why) end
end

-- Verdict unsupported, "unsupported on <os>: <reason>", unless this OS's
-- platform layer has the harness primitive p (sp.lacks: "hold", "fault",
-- "swap", "swapper", "lab", "census", "private_mounts").
function T:need_primitive(p)
  local why = sp.lacks(p)
  if why then self:unsupported(why) end
end

-- A race states its power: attempts made, windows hit, and the minimum
-- number of hits below which the verdict is inconclusive.
local POWER_KEYS = check.set { "attempts", "windows", "min" }
function T:set_power(p)
  check.keys(p, POWER_KEYS, "t:set_power")
  for k in pairs(POWER_KEYS) do check.type(p, k, "integer", "t:set_power") end
  self.power.attempts = p.attempts or self.power.attempts
  self.power.windows = p.windows or self.power.windows
  self.power.min = p.min or self.power.min
end

-- Sentinel first: a run without the probe's sentinel proves nothing.
function T:ran(r)
  if not (r and r.sentinel) then
    self:note("note", "probe sentinel missing; stdout: " .. tostring(r and r.stdout or ""):sub(1, 500))
    self:error("the in-sandbox probe did not run (sentinel missing): " ..
      tostring(r and r.outcome and r.outcome.kind or "?"))
  end
  return r
end

-- ---- processes ---------------------------------------------------------------

-- Every process a runner adapter starts goes through here, so the current
-- lab, hold and fault apply to it.  o is sp.spawn's options (without lab,
-- hold and fault, which are the context's) plus signal_after_ms, signal and signal_when;
-- it is not changed.
local SPAWN_KEYS = check.set { "argv", "cwd", "env", "stdin", "timeout_ms", "private_mounts",
                               "kill_leftovers", "signal_after_ms", "signal", "signal_when" }
function T:spawn(o)
  if type(o) ~= "table" then error("t:spawn needs an options table", 2) end
  check.keys(o, SPAWN_KEYS, "t:spawn")
  check.type(o, "signal_after_ms", "number", "t:spawn")
  check.type(o, "signal", "string", "t:spawn")
  check.type(o, "signal_when", "string", "t:spawn")
  local s = check.copy(o)
  s.signal_after_ms, s.signal, s.signal_when = nil, nil, nil
  if o.signal_after_ms or o.signal_when then
    -- Signal the runner (and only it, by its held pid) N ms after it
    -- started, or after the path signal_when exists (looked for every
    -- 20 ms while the runner lives: a loaded machine cannot make the
    -- signal come before the scene is set) and then N ms more.  The
    -- launcher sends it (proc.h), never a shell: a shell's background job
    -- would start the runner with SIGINT ignored.
    s.signal = { name = o.signal or "SIGTERM", after_ms = o.signal_after_ms or 0, when = o.signal_when }
  end
  if s.private_mounts then self:need_primitive("private_mounts") end
  s.lab, s.hold, s.fault = self._ctx.lab, self._ctx.hold, self._ctx.fault
  s.timeout_ms = s.timeout_ms or 60000
  -- the errno's name too: a CRT's strerror may know no text for it
  local r, err, ename = sp.spawn(s)
  if not r then self:error(string.format("spawn failed: %s (%s)", tostring(err), tostring(ename))) end
  return r
end

-- A probe op is { name, args... } with, optionally, as = "NAME": its
-- result is then r.op.NAME as well as r.probe[i].
local OP_KEYS = check.set { "as" }

-- The probe's argument words for ops ({ probe, op1 ..., "--", op2 ... })
-- and the names of their results ({ [i] = name }); misuse raises at
-- `level` (as for error(), counted from probe_argv's caller; default 2).
function M.probe_argv(probe, ops, where, level)
  level = (level or 2) + 1
  if type(ops) ~= "table" then error(where .. ": probe must be a list of ops", level) end
  local argv, names = { probe }, {}
  for i, op in ipairs(ops) do
    if type(op) ~= "table" or type(op[1]) ~= "string" then
      error(string.format("%s: probe op %d must be { name, args... }", where, i), level)
    end
    for k in pairs(op) do
      if math.type(k) ~= "integer" and not OP_KEYS[k] then
        error(string.format('%s: probe op %d (%s): unknown option "%s"', where, i, op[1], tostring(k)), level)
      end
    end
    if i > 1 then argv[#argv + 1] = "--" end
    for _, a in ipairs(op) do argv[#argv + 1] = tostring(a) end
    names[i] = op.as
  end
  return argv, names
end

local function parse_probe(out)
  local sentinel, ops = false, {}
  for line in (out or ""):gmatch("[^\n]+") do
    if line:sub(1, 1) == "{" then
      local j = sp.json_decode(line)
      if j and j.sentinel == "sandproof-probe" then
        sentinel = true
      elseif j and j.op and sentinel then
        j.errno = j.errno ~= sp.null and j.errno or nil
        ops[#ops + 1] = j
      end
    end
  end
  return sentinel, ops
end

-- r.op: the results by name, found by the index the probe printed (its
-- `i`, from 0), never by position in the output, so an op added before
-- another never shifts what a check reads.  A name no op declared raises
-- (a typo is misuse); a declared one whose op printed nothing (the probe
-- stopped before it) is nil.  The first result of an index wins (a command
-- may run the probe twice).
local function name_results(results, names, where)
  local declared, byname = {}, {}
  for i, n in pairs(names) do
    if type(n) ~= "string" or n == "" then
      error(string.format("%s: the name of probe op %d must be a non-empty string", where, i), 3)
    end
    if declared[n] then error(string.format('%s: probe ops %d and %d are both named "%s"', where, declared[n], i, n), 3) end
    declared[n] = i
  end
  for pos, j in ipairs(results) do
    local n = names[(math.type(j.i) == "integer" and j.i or pos - 1) + 1]
    if n and byname[n] == nil then byname[n] = j end
  end
  return setmetatable(byname, { __index = function(_, k)
    if declared[k] then return nil end
    error(string.format('r.op.%s: no probe op is named "%s"', tostring(k), tostring(k)), 2)
  end })
end

-- The capability a request needs, for each part of it an adapter may lack,
-- checked in this order before the adapter sees the request.
local function request_needs(spec, ctx)
  local p, needs = spec.profile, {}
  if spec.raw_request then needs[#needs + 1] = "raw_request" end
  if p.runtime then needs[#needs + 1] = "runtime_roots" end
  if p.limits then needs[#needs + 1] = "limits" end
  if spec.output_limit_bytes then needs[#needs + 1] = "output_limit" end
  if ctx.hold then needs[#needs + 1] = "hold" end
  if ctx.fault then needs[#needs + 1] = "fault" end
  if p.block_unix_sockets then needs[#needs + 1] = "block_unix_sockets" end
  return needs
end

local SANDBOX_KEYS = check.set { "probe", "command", "op_names", "profile", "network",
  "block_unix_sockets", "cwd", "env", "stdin", "timeout_ms", "output_limit_bytes",
  "signal_after_ms", "signal", "signal_when", "raw_request" }
local SANDBOX_TYPES = { probe = "table", command = "table", op_names = "table", profile = "table",
  network = "string", block_unix_sockets = "boolean", cwd = "string", env = "table",
  stdin = "string", timeout_ms = "integer", output_limit_bytes = "integer",
  signal_after_ms = "number", signal = "string", signal_when = "string", raw_request = "string" }

-- The request t:sandbox hands the adapter: a copy of spec (the caller's
-- table and its profile are never changed) with every default filled in,
-- and the names of the probe's results.
local function sandbox_request(self, spec)
  check.keys(spec, SANDBOX_KEYS, "t:sandbox", 3)
  for k, ty in pairs(SANDBOX_TYPES) do check.type(spec, k, ty, "t:sandbox", 3) end
  local s, names = check.copy(spec), {}
  s.profile = check.copy(spec.profile) or self.profiles.workspace_write()
  if s.network then s.profile.network = { mode = s.network } end
  if s.block_unix_sockets ~= nil then s.profile.block_unix_sockets = s.block_unix_sockets end
  if s.probe and s.command then error("t:sandbox: give probe or command, not both", 3) end
  if s.probe then
    s.command, names = M.probe_argv(self.paths.probe, s.probe, "t:sandbox", 3)
    if s.op_names then error("t:sandbox: op_names is for a command; name probe ops with as", 3) end
  elseif s.op_names then
    names = s.op_names
  end
  if not s.command then error("t:sandbox needs command or probe", 3) end
  s.cwd = s.cwd or self.ws
  s.env = s.env or { PATH = "/usr/local/bin:/usr/bin:/bin" }
  return s, names
end

-- Run one command (spec.command) or probe op list (spec.probe) through the
-- runner under test.  Returns { outcome, probe, op, sentinel, stdout,
-- stderr, ... } (docs/SCENARIOS.md).  What the runner lacks (its
-- capabilities) is verdict unsupported before it is asked.
function T:sandbox(spec)
  local s, names = sandbox_request(self, spec or {})
  for _, cap in ipairs(request_needs(s, self._ctx)) do self:need(cap) end
  -- Safety: this host may itself sit on a TEST-NET range, so a runner that
  -- shares the network namespace it starts in only ever runs in a lab.
  if s.profile.network and s.profile.network.mode ~= "deny" and not self._ctx.lab then
    self:lab()
  end
  local r = self.runner.sandbox(self, s)
  if r.unsupported then self:unsupported(r.unsupported) end
  local o = r.outcome or {}
  r.stdout = o.stdout or r.stdout or ""
  r.stderr = o.stderr or r.stderr or ""
  r.sentinel, r.probe = parse_probe(r.stdout)
  r.op = name_results(r.probe, names, "t:sandbox")
  local function v(x) return (x == nil or x == sp.null) and "-" or tostring(x) end
  self:note("outcome", string.format("kind=%s exit=%s signal=%s denials=%s",
    v(o.kind), v(o.exit and o.exit.code), v(o.exit and o.exit.signal),
    sp.json_encode(o.denials or {})))
  if #r.probe > 0 then
    local lines = {}
    for _, p in ipairs(r.probe) do
      lines[#lines + 1] = string.format("%s %s %s", p.op, p.ok and "ok" or "FAIL", p.errno or "")
    end
    self:note("probe", table.concat(lines, "\n"))
  end
  if r.stderr ~= "" then self:note("stderr", r.stderr:sub(-2000)) end
  return r
end

-- ---- races and faults -------------------------------------------------------

-- Run spec under a seccomp hold on the runner: at the at-th call among
-- `syscalls` (all processes of the run count; with h.comm only those whose
-- comm is h.comm, e.g. "sandproof-probe" for the command's own calls) run
-- action, then let the call continue.  r.hold_hit: the at-th call came
-- and the action ran; r.hold_total: the calls counted.  A run in which the
-- at-th call never came was a plain run and proves nothing about window
-- at: it is repeated, up to h.retries times (default 2) - a runner whose
-- call count varies between runs (srt's node) would otherwise leave
-- windows untried.
-- On Windows a hold names a path instead (h.path): an oplock on it, the
-- at-th open of it that breaks the oplock is held while action runs
-- (docs/SCENARIOS.md, t:hold on Windows); a hold of syscalls there, or of
-- a path elsewhere, is unsupported with that reason.  r.hold_note says what
-- the Windows hold observed.
local HOLD_KEYS = check.set { "syscalls", "path", "at", "action", "sandbox", "comm", "retries" }
local function windows_os(os) return os == "windows" or os == "wine" end
function T:hold(h)
  check.keys(h, HOLD_KEYS, "t:hold")
  check.type(h, "syscalls", "table", "t:hold")
  check.type(h, "path", "string", "t:hold")
  check.type(h, "at", "integer", "t:hold")
  check.type(h, "action", "function", "t:hold")
  check.type(h, "sandbox", "table", "t:hold")
  check.type(h, "comm", "string", "t:hold")
  check.type(h, "retries", "integer", "t:hold")
  if not (h.syscalls or h.path) then error("t:hold needs syscalls (or path, on Windows)", 2) end
  self:need_primitive("hold")
  local win = windows_os(self.os)
  if win and not h.path then
    self:unsupported("a Windows hold holds the opens of a path (an oplock); this hold names only syscalls")
  elseif not win and not h.syscalls then
    self:unsupported("this hold names a path (a Windows oplock hold); on " .. tostring(self.os) ..
      " a hold names syscalls")
  end
  local r
  for _ = 0, (h.at or 0) > 0 and (h.retries or 2) or 0 do
    self._ctx.hold = { syscalls = not win and h.syscalls or nil, path = win and h.path or nil,
                       at = h.at, action = h.action, comm = not win and h.comm or nil }
    local ok
    ok, r = pcall(self.sandbox, self, h.sandbox or {})
    self._ctx.hold = nil
    if not ok then error(r, 0) end
    if r.hold_note then self:note("hold", r.hold_note) end
    if r.hold_hit or r.unsupported then break end
  end
  return r
end

-- How many calls among `syscalls` (or opens of path, on Windows) a plain
-- run of spec makes.
local HOLD_COUNT_KEYS = check.set { "syscalls", "path", "sandbox", "comm" }
function T:hold_count(h)
  check.keys(h, HOLD_COUNT_KEYS, "t:hold_count")
  local r = self:hold { syscalls = h.syscalls, path = h.path, at = 0, sandbox = h.sandbox, comm = h.comm }
  return r.hold_total or 0, r
end

-- Run spec with the runner under a fault: `syscall` fails with `errno`
-- from its nth call on (default 1), or with f.once only at its nth call;
-- with f.arg1 only calls whose second argument (32 bits) is f.arg1.
-- r.fault_hit: whether the error was delivered, when the harness could
-- count it (nth >= 2 or once; nil for a plain "every call" fault).  A
-- counted run in which the nth call never came was a plain run and proves
-- nothing about call nth: it is repeated, up to f.retries times (default 2),
-- after f.reset() when given (to undo what the plain run left on the host).
local FAULT_KEYS = check.set { "syscall", "errno", "nth", "once", "arg1", "sandbox", "retries", "reset" }
local FAULT_TYPES = { syscall = "string", errno = "string", nth = "integer", once = "boolean",
  arg1 = "integer", sandbox = "table", retries = "integer", reset = "function" }
function T:fault(f)
  check.keys(f, FAULT_KEYS, "t:fault")
  for k, ty in pairs(FAULT_TYPES) do check.type(f, k, ty, "t:fault") end
  if not (f.syscall and f.errno) then error("t:fault needs syscall and errno", 2) end
  self:need_primitive("fault")
  local counted, r = f.once or (f.nth or 1) >= 2, nil
  for i = 0, counted and (f.retries or 2) or 0 do
    if i > 0 and f.reset then f.reset() end
    self._ctx.fault = { syscall = f.syscall, errno = f.errno, nth = f.nth or 1, once = f.once,
                        arg1 = f.arg1 }
    local ok
    ok, r = pcall(self.sandbox, self, f.sandbox or {})
    self._ctx.fault = nil
    if not ok then error(r, 0) end
    if r.fault_failed ~= nil then r.fault_hit = r.fault_failed > 0 end
    if r.fault_hit ~= false or r.unsupported then break end
  end
  return r
end

function T:swap(a, b)
  self:need_primitive("swap")
  local ok, err = sp.swap(a, b)
  if not ok then self:error("swap: " .. tostring(err)) end
end

-- Windows: link made a junction to the directory target, or retargeted
-- when it is one already (one FSCTL_SET_REPARSE_POINT: the bait-and-switch
-- swap of a held open, docs/SCENARIOS.md).  Where there are no junctions
-- (every other OS, Wine) unsupported with the reason.
function T:junction(link, target)
  self:need_primitive("swap")
  local ok, err = sp.junction(link, target)
  if not ok then self:error("junction: " .. tostring(err)) end
end

-- A separate process exchanging a and b in a tight loop until :stop(),
-- which returns the number of exchanges (and restores the arrangement).
-- On Windows a is a junction flipped between its target and the directory
-- b by a thread of the harness (swap.h; docs/SCENARIOS.md).
function T:swapper(a, b)
  self:need_primitive("swapper")
  local s, err = sp.swapper(a, b)
  if not s then self:error("swapper: " .. tostring(err)) end
  self._swappers[#self._swappers + 1] = s
  return s
end

-- The network lab: a network namespace with no uplink (loopback, a veth
-- pair with TEST-NET addresses, optionally a routed far side).  Every
-- later t:sandbox in this context starts the runner inside it.
-- A context made with opts.lend_lab (sandproof explore) gets an unrouted
-- lab from that function instead: a lab its caller keeps for several
-- contexts (finish() leaves it), nil and why when it has none.
local LAB_KEYS = check.set { "routed" }
function T:lab(opts)
  check.keys(opts, LAB_KEYS, "t:lab")
  check.type(opts or {}, "routed", "boolean", "t:lab")
  self:need_primitive("lab")
  local l, err
  if self._lend_lab and not (opts and opts.routed) then
    l, err = self._lend_lab()
    if not l then self:skip("network lab unavailable: " .. tostring(err)) end
    self._ctx.lab = l
    return l
  end
  l, err = sp.lab(opts or {})
  if not l then self:skip("network lab unavailable: " .. tostring(err)) end
  self._labs[#self._labs + 1] = l
  self._ctx.lab = l
  return l
end

-- The workspace moved onto a case-insensitive volume (sp.casefold_volume:
-- Linux, exFAT through FUSE on a loop device, in this scenario process's
-- own mount namespace; torn down by finish(), or by the kernel when the
-- process tree dies).  t.ws becomes a fresh git workspace on it, laid out
-- as the default one; the profiles follow t.ws.  A name made there is
-- checked to be found under another case before it is returned.  Verdict
-- unsupported where the OS has no such primitive, skip (with the reason)
-- where this host cannot make one (not root, no FUSE, no exFAT tools).
-- Returns the workspace and the volume's directory (t.ws's parent).
local HOST_LACKS = { EPERM = true, EACCES = true, ENOENT = true, ENODEV = true }
function T:casefold_workspace()
  self:need_primitive("casefold_volume")
  local dir = self.tmp .. "/cfvol"
  if not sp.exists(dir) then assert(sp.mkdir(dir)) end
  local v, err, ename = sp.casefold_volume { dir = dir, image = self.tmp .. "/cfvol-" .. (#self._volumes + 1) .. ".img" }
  if not v then
    if HOST_LACKS[ename] then self:skip("no case-insensitive volume on this host: " .. tostring(err)) end
    self:error("could not make a case-insensitive volume: " .. tostring(err))
  end
  self._volumes[#self._volumes + 1] = v
  local ws = dir .. "/ws"
  git_workspace(ws)
  if not (sp.exists(ws .. "/.git/hooks") and sp.exists(ws .. "/.GIT/HOOKS") and sp.exists(ws .. "/readme")) then
    self:error("the workspace on " .. v:device() .. " does not match names case-insensitively")
  end
  self:note("note", "workspace " .. ws .. " on a case-insensitive exFAT volume (" .. v:device() .. ")")
  self.ws = ws
  return ws, dir
end

-- sp.census, the scenario's temp directory the default `temp`.
local CENSUS_KEYS = check.set { "marker", "mounts", "locks", "temp" }
function T:census(opts)
  check.keys(opts, CENSUS_KEYS, "t:census")
  self:need_primitive("census")
  local o = check.copy(opts) or {}
  o.temp = o.temp or { self.tmp }
  return sp.census(o)
end

-- ---- what only some runners have (capabilities) ------------------------------

-- Runtime-root eviction (RT-6) by the runner under test, now or, with
-- gc_async, after o.delay_ms in the background: { ran, evicted, skipped,
-- summary } (gc_async: a handle whose :wait() returns it).  Unsupported
-- unless the runner has capability gc.
local GC_KEYS = check.set { "parent", "max_age_s", "max_roots", "mounts" }
local GC_ASYNC_KEYS = check.set { "parent", "max_age_s", "max_roots", "delay_ms" }
local function gc_opts(o, known, where)
  check.keys(o, known, where, 3)
  if type(o) ~= "table" or type(o.parent) ~= "string" then error(where .. ": parent (a directory) is required", 3) end
  for k in pairs(known) do
    if k ~= "parent" and k ~= "mounts" then check.type(o, k, "integer", where, 3) end
  end
  for i, m in ipairs(type(o.mounts) == "table" and o.mounts or {}) do
    if type(m) ~= "table" or type(m.at) ~= "string" or
       (type(m.bind) == "string") == (type(m.tmpfs) == "string") then
      error(string.format("%s: mounts[%d] must be { at = DIR, bind = SRC } or { at = DIR, tmpfs = TEXT }", where, i), 3)
    end
  end
  if o.mounts ~= nil and type(o.mounts) ~= "table" then error(where .. ": mounts must be a list", 3) end
end

function T:gc(o)
  gc_opts(o, GC_KEYS, "t:gc")
  self:need("gc")
  return self.runner.gc(self, o)
end

function T:gc_async(o)
  gc_opts(o, GC_ASYNC_KEYS, "t:gc_async")
  self:need("gc")
  return self.runner.gc_async(self, o)
end

-- The runner's host check (SETUP-4), under the context's fault if any:
-- { exit, text }.  Unsupported unless the runner has capability doctor.
function T:doctor()
  self:need("doctor")
  return self.runner.doctor(self)
end

-- A session server of the runner under test (sandproof.sessions).
function T:session(opts) return require("sandproof.sessions").open(self, opts) end

function T:finish()
  require("sandproof.sessions").finish(self)
  for _, s in ipairs(self._swappers) do pcall(s.stop, s) end
  for _, l in ipairs(self._labs) do pcall(l.destroy, l) end
  -- Volumes last: nothing of the run may still be inside (their end
  -- waits for the mount and the loop device to go, bounded).
  for _, v in ipairs(self._volumes) do
    local ok, why = v:close()
    if not ok then self:note("note", "residue: " .. tostring(why)) end
  end
  self._swappers, self._labs, self._volumes = {}, {}, {}
  if self._lent then return end -- the owner's to remove
  if self.tmp then sp.rmtree(self.tmp) end
  if self.vtmp then sp.rmtree(self.vtmp) end
end

return M
