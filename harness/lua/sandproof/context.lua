-- sandproof.context - the `t` a scenario's run(t) receives.
--
-- One context per (scenario, runner) pair, in its own process.  It owns a
-- fresh temp directory holding the workspace (a git repository with
-- .git/hooks and .git/config) and an "outside" sibling with a victim file;
-- scenarios only ever target paths in there.  finish() ends every process,
-- swapper and lab the context started and removes the directory.
local sp = require "sp"

local M = {}
local T = {}
T.__index = T

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

function M.new(sc, runner_name, opts)
  local ok, adapter = pcall(require, runner_name)
  if not ok then return nil, "unknown runner '" .. runner_name .. "': " .. tostring(adapter) end
  -- Named with our pid: if this process dies before finish(), the harness
  -- parent removes /tmp/sandproof-<pid>-* and /var/tmp/sandproof-<pid>-*.
  local safe = sp.getpid() .. "-" .. sc.id:gsub("[^%w]", "_")
  local tmp, err = sp.mkdtemp("/tmp/sandproof-" .. safe .. "-")
  if not tmp then return nil, err end
  local t = setmetatable({
    sc = sc, id = sc.id, os = sp.os, tmp = tmp, ws = tmp .. "/ws",
    outside = tmp .. "/outside", runner = adapter, runner_name = runner_name,
    seed = opts.seed or 1, paths = opts.paths, evidence = {},
    power = { attempts = 0, windows = 0, min = 0 }, _labs = {}, _swappers = {},
    _ctx = {},
  }, T)
  git_workspace(t.ws)
  assert(sp.mkdir(t.outside))
  sp.write(t.outside .. "/victim", "untouched\n")
  -- A second "outside" that the sandbox can SEE (read-only): the sandbox
  -- replaces /tmp, so t.outside is invisible inside it; t.visible_outside
  -- lives under /var/tmp, which stays part of the read-only host view.
  local vt = sp.mkdtemp("/var/tmp/sandproof-" .. safe .. "-")
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

function T:note(kind, body)
  if #self.evidence < 256 then
    self.evidence[#self.evidence + 1] = { kind = kind, body = tostring(body):sub(1, 8192) }
  end
end

function T:skip(reason) error({ sp_skip = reason }, 0) end
function T:unsupported(reason) error({ sp_unsupported = reason }, 0) end

-- A race states its power: attempts made, windows hit, and the minimum
-- number of hits below which the verdict is inconclusive.
function T:set_power(p)
  self.power.attempts = p.attempts or self.power.attempts
  self.power.windows = p.windows or self.power.windows
  self.power.min = p.min or self.power.min
end

-- Sentinel first: a run without the probe's sentinel proves nothing.
function T:ran(r)
  if not (r and r.sentinel) then
    self:note("note", "probe sentinel missing; stdout: " .. tostring(r and r.stdout or ""):sub(1, 500))
    error({ sp_error = "the in-sandbox probe did not run (sentinel missing): " ..
      tostring(r and r.outcome and r.outcome.kind or "?") }, 0)
  end
  return r
end

-- ---- processes ---------------------------------------------------------------

-- Every process a runner adapter starts goes through here, so the current
-- lab, hold and fault apply to it.
function T:spawn(o)
  if o.signal_after_ms then
    -- Signal the runner (and only it, by pid) N ms after it started.  The
    -- wrapper shell hands the runner its own stdin (an async list would get
    -- /dev/null) and keeps its exit status; until it waits, a finished
    -- runner stays a zombie, so the pid cannot be reused before the kill.
    local argv = { "sh", "-c", string.format('exec 3<&0; "$@" <&3 3<&- & p=$!; exec 3<&-; sleep %.3f; kill -s %s $p 2>/dev/null; wait $p',
      o.signal_after_ms / 1000, (o.signal or "SIGTERM"):gsub("^SIG", "")), "sh" }
    for _, a in ipairs(o.argv) do argv[#argv + 1] = a end
    o.argv = argv
  end
  o.lab = o.lab or self._ctx.lab
  o.hold = o.hold or self._ctx.hold
  o.fault = o.fault or self._ctx.fault
  o.timeout_ms = o.timeout_ms or 60000
  local r, err = sp.spawn(o)
  if not r then error({ sp_error = "spawn failed: " .. tostring(err) }, 0) end
  return r
end

local function probe_argv(probe, ops)
  local argv = { probe }
  for i, op in ipairs(ops) do
    if i > 1 then argv[#argv + 1] = "--" end
    for _, a in ipairs(op) do argv[#argv + 1] = tostring(a) end
  end
  return argv
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

-- Run one command (spec.command) or probe op list (spec.probe) through the
-- runner under test.  Returns { outcome, probe, sentinel, stdout, stderr }.
function T:sandbox(spec)
  spec = spec or {}
  spec.profile = spec.profile or self.profiles.workspace_write()
  if spec.network then spec.profile.network = { mode = spec.network } end
  if spec.block_unix_sockets ~= nil then spec.profile.block_unix_sockets = spec.block_unix_sockets end
  if spec.probe then spec.command = probe_argv(self.paths.probe, spec.probe) end
  assert(spec.command, "t:sandbox needs command or probe")
  spec.cwd = spec.cwd or self.ws
  spec.env = spec.env or { PATH = "/usr/local/bin:/usr/bin:/bin" }
  -- Safety: this host may itself sit on a TEST-NET range, so a runner that
  -- shares the network namespace it starts in only ever runs in a lab.
  if spec.profile.network and spec.profile.network.mode ~= "deny" and not self._ctx.lab then
    self:lab()
  end
  local r = self.runner.sandbox(self, spec)
  if r.unsupported then self:unsupported(r.unsupported) end
  local o = r.outcome or {}
  r.stdout = o.stdout or r.stdout or ""
  r.stderr = o.stderr or r.stderr or ""
  r.sentinel, r.probe = parse_probe(r.stdout)
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
function T:hold(h)
  local r
  for _ = 0, (h.at or 0) > 0 and (h.retries or 2) or 0 do
    self._ctx.hold = { syscalls = h.syscalls, at = h.at, action = h.action, comm = h.comm }
    local ok
    ok, r = pcall(self.sandbox, self, h.sandbox or {})
    self._ctx.hold = nil
    if not ok then error(r, 0) end
    if r.hold_hit or r.unsupported then break end
  end
  return r
end

-- How many calls among `syscalls` a plain run of spec makes.
function T:hold_count(h)
  local r = self:hold { syscalls = h.syscalls, at = 0, sandbox = h.sandbox, comm = h.comm }
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
function T:fault(f)
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
  local ok, err = sp.swap(a, b)
  if not ok then error({ sp_error = "swap: " .. tostring(err) }, 0) end
end

-- A separate process exchanging a and b in a tight loop until :stop(),
-- which returns the number of exchanges (and restores the arrangement).
function T:swapper(a, b)
  local s, err = sp.swapper(a, b)
  if not s then error({ sp_error = "swapper: " .. tostring(err) }, 0) end
  self._swappers[#self._swappers + 1] = s
  return s
end

-- The network lab: a network namespace with no uplink (loopback, a veth
-- pair with TEST-NET addresses, optionally a routed far side).  Every
-- later t:sandbox in this context starts the runner inside it.
function T:lab(opts)
  local l, err = sp.lab(opts or {})
  if not l then self:skip("network lab unavailable: " .. tostring(err)) end
  self._labs[#self._labs + 1] = l
  self._ctx.lab = l
  return l
end

function T:census(opts)
  opts = opts or {}
  opts.temp = opts.temp or { self.tmp }
  return sp.census(opts)
end

function T:finish()
  for _, s in ipairs(self._swappers) do pcall(s.stop, s) end
  for _, l in ipairs(self._labs) do pcall(l.destroy, l) end
  self._swappers, self._labs = {}, {}
  if self.tmp then sp.rmtree(self.tmp) end
  if self.vtmp then sp.rmtree(self.vtmp) end
end

return M
