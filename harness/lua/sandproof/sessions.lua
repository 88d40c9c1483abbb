-- sandproof.sessions - t:session: a session server of the runner under test
-- (docs/CONTRACT.md, SESS; docs/SCENARIOS.md, "t:session").
--
--   local srv = t:session { max_sessions = 4, retain_ms = 1000, output_bytes = 65536,
--                           pid_namespace = false }   -- true: the server is pid 1 of a
--                           -- user+pid namespace the harness owns (forced pid reuse)
--   local r = srv:start { command = {...}, tty = false, yield_ms = 500 }   -- a t:sandbox spec + tty, yield_ms
--   r = srv:continue { session = r.session, input = "x\n", eof = false, interrupt = false, yield_ms = 100 }
--   srv:stop(id), srv:stop_all(), srv:list(), srv:raw(line), srv:rss_kib(), srv:close()
--   srv:post(msg), srv:hangup(wait_ms)   -- a call left waiting, then the caller gone
--
-- Every call returns the response line decoded (a session state, or
-- { error = "..." }); `output` is decoded to bytes when the server sent it
-- as base64.  The adapter's session(t, opts) gives the backend: call(line)
-- -> the response line, rss_kib(), close().  Unsupported unless the runner
-- has capability sessions.
local sp = require "sp"
local check = require "sandproof.check"
local encoded = require "sandproof.encoded"

local M = {}
local S = {}
S.__index = S

local SERVER_KEYS = check.set { "max_sessions", "retain_ms", "output_bytes", "pid_namespace" }
local START_KEYS = check.set { "command", "probe", "profile", "cwd", "env", "stdin", "timeout_ms",
  "tty", "yield_ms", "network" }
local CONTINUE_KEYS = check.set { "session", "input", "eof", "interrupt", "yield_ms" }

function M.open(t, opts)
  opts = opts or {}
  check.keys(opts, SERVER_KEYS, "t:session", 3)
  for k in pairs(SERVER_KEYS) do
    check.type(opts, k, k == "pid_namespace" and "boolean" or "integer", "t:session", 3)
  end
  t:need("sessions")
  local backend = t.runner.session(t, opts)
  if backend.unsupported then t:unsupported(backend.unsupported) end
  local srv = setmetatable({ t = t, b = backend }, S)
  t._sessions = t._sessions or {}
  t._sessions[#t._sessions + 1] = srv
  return srv
end

-- The response to one line, decoded; a line that is not JSON is an error
-- of the harness's run (the runner broke the protocol).
local function decode(t, line, wait_ms)
  local resp = line and sp.json_decode(line)
  if type(resp) ~= "table" then
    return { error = "no response line (protocol broken): " .. tostring(line), broken = true }
  end
  if resp.output_encoding == "base64" and type(resp.output) == "string" then
    local bytes, err = sp.base64_decode(resp.output)
    if not bytes then t:error("session output: " .. tostring(err)) end
    resp.output = bytes
  end
  if resp.outcome == sp.null then resp.outcome = nil end
  local cerr = encoded.decode_changes(resp.outcome)
  if cerr then t:error("session outcome " .. cerr) end
  resp.wait_ms = wait_ms
  return resp
end

function S:raw(line, wait_ms)
  local t0 = sp.now_ms()
  local got = self.b.call(line, (wait_ms or 0) + 60000)
  return decode(self.t, got, sp.now_ms() - t0)
end

local function send(self, msg, yield)
  return self:raw(sp.json_encode(msg), yield)
end

function S:start(spec)
  check.keys(spec, START_KEYS, "srv:start", 2)
  local t = self.t
  local s = check.copy(spec)
  local req = { version = 1, command = s.command, cwd = s.cwd or t.ws,
                env = s.env or { PATH = "/usr/local/bin:/usr/bin:/bin" }, stdin = s.stdin,
                timeout_ms = s.timeout_ms or 60000,
                profile = check.copy(s.profile) or t.profiles.workspace_write() }
  if s.probe then req.command = require("sandproof.context").probe_argv(t.paths.probe, s.probe, "srv:start", 2) end
  if s.network then req.profile.network = { mode = s.network } end
  if not req.command then error("srv:start needs command or probe", 2) end
  return send(self, { op = "start", request = req, tty = s.tty or false, yield_ms = s.yield_ms or 0 },
              s.yield_ms)
end

function S:continue(o)
  check.keys(o, CONTINUE_KEYS, "srv:continue", 2)
  local msg = check.copy(o)
  msg.op = "continue"
  return send(self, msg, o.yield_ms)
end

-- Poll session id (empty polls of yield_ms, default 500) until it exited,
-- an error came, or max_ms (default 60000) passed; each = function(resp)
-- is called after every response (a host-side oracle).  { last, output
-- (every byte, in order), max_call (the largest output of one call),
-- dropped (the sum of dropped_bytes), calls }.
function S:collect(id, o)
  o = o or {}
  local parts, max_call, dropped, calls = {}, 0, 0, 0
  local deadline = sp.now_ms() + (o.max_ms or 60000)
  local r
  repeat
    r = self:continue { session = id, yield_ms = o.yield_ms or 500 }
    calls = calls + 1
    if o.each then o.each(r) end
    if r.error then break end
    parts[#parts + 1] = r.output or ""
    max_call = math.max(max_call, #(r.output or ""))
    dropped = dropped + (tonumber(r.dropped_bytes) or 0)
  until r.exited or sp.now_ms() > deadline
  return { last = r, output = table.concat(parts), max_call = max_call, dropped = dropped, calls = calls }
end

function S:stop(id) return send(self, { op = "stop", session = id }, 15000) end
function S:stop_all() return send(self, { op = "stop_all" }, 15000) end
function S:list() return send(self, { op = "list" }, 0) end
-- The server's host pid (pid_namespace: the namespace's init, whose
-- namespaces nsenter can join), or nil.
function S:server_pid() return self.b.server_pid and self.b.server_pid() end
-- The server's resident size now, as the host sees it (KiB), or nil.
function S:rss_kib() return self.b.rss_kib() end
function S:close() if self.b then self.b.close(); self.b = nil end end
-- The caller going away (SESS-8): post(msg) sends one request line and
-- leaves its response unread, so the call stays waiting in the server;
-- hangup(wait_ms) then closes the server's stdin and waits up to wait_ms
-- for it to exit: exited (boolean) and the milliseconds waited.  After a
-- post only hangup and close are meaningful.  nil, reason where the runner
-- has no server process to hang up on (none: the harness is its server).
function S:post(msg)
  if not self.b.post then return nil, "no session server process" end
  return self.b.post(sp.json_encode(msg))
end
function S:hangup(wait_ms)
  if not self.b.hangup then return nil, "no session server process" end
  local t0 = sp.now_ms()
  local exited = self.b.hangup(wait_ms or 5000)
  return exited, sp.now_ms() - t0
end

-- context.finish: every server still open is closed (its sessions stopped).
function M.finish(t)
  for _, srv in ipairs(t._sessions or {}) do pcall(srv.close, srv) end
  t._sessions = {}
end

return M
