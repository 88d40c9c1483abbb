-- Defaults fail closed: a request with no profile at all gets a restricted
-- filesystem with no write roots and network deny.  The command (sent as
-- raw request text, so no adapter fills anything in; cwd "/") tries to
-- write into the workspace; the write must not land on the host,
-- and the outcome must report a network namespace (no_net_ns otherwise:
-- the deny default not applied as far as the runner says, nothing reached,
-- hardening).  The positive control:
-- the same request with the workspace as a write root writes there.
-- On macOS (Seatbelt: no namespace to report) the network deny is checked
-- by its effect: the command also connects to a listener on the host's
-- loopback (lib.host_listener), which must count only the host's own
-- control connect.  The command is the probe (no shell: the same on every
-- OS); that it ran is its sentinel on stdout.
local lib = require "sandproof.lib"

local function js(s) return sp.json_encode(s) end

return scenario {
  id = "setup.request_defaults_closed",
  clauses = { "REQ-7", "OUT-4" },
  claim = "a request without a profile runs with a read-only filesystem and network deny",
  expect = { linux = { "closed" }, macos = { "closed" }, windows = { "closed" } },
  impact = { network_open = "escape", wrote = "escape", no_net_ns = "hardening", ["did_not_run:*"] = "fidelity" },
  control = "proc.exit_code_exact",
  run = function(t)
    local mark = t.ws .. "/ran"
    local l = t.os == "macos" and lib.host_listener(t, "127.0.0.1") or nil
    local dial = l and string.format(',"--","connect","tcp","127.0.0.1","%d"', l.port) or ""
    local function request(profile)
      return string.format('{"version":1,"command":[%s,"write",%s,"x"%s],"cwd":%s,"env":{"PATH":"/usr/bin:/bin"}%s}',
        js(t.paths.probe), js(mark), profile and "" or dial, js("/"), profile or "")
    end
    local open = string.format(',"profile":{"filesystem":{"kind":"restricted","write_roots":[{"root":%s}]}}', js(t.ws))
    local r0 = t:sandbox { raw_request = request(open), command = { "true" } } -- command: unused, t:sandbox wants one
    if r0.outcome.kind ~= "success" or not sp.exists(mark) then return "control_failed" end
    assert(sp.unlink(mark))
    local r = t:sandbox { raw_request = request(), command = { "true" } }
    local o = r.outcome
    local e = type(o.enforcement) == "table" and o.enforcement or {}
    t:note("note", string.format("no profile: kind %s net_ns %s mount_ns %s stdout %q stderr %q", tostring(o.kind),
      tostring(e.net_ns), tostring(e.mount_ns), tostring(o.stdout), tostring(o.stderr):sub(1, 200)))
    if sp.exists(mark) then return "wrote" end
    if not tostring(o.stdout):find('"sentinel":"sandproof-probe"', 1, true) then
      return "did_not_run:" .. tostring(o.kind)
    end
    if l then
      l.connect()
      local peers = l.count()
      t:note("note", "host loopback listener: " .. peers .. " peers (the host's own control included)")
      if peers < 1 then t:error("the host's own connect to its listener was not counted") end
      if peers > 1 then return "network_open" end
    elseif e.net_ns ~= true then
      return "no_net_ns" -- the runner's word: nothing was reached, none was tried
    end
    return "closed"
  end,
}
