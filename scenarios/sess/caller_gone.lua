-- SESS-8: a caller that goes away while a call waits stops the server and
-- every session.  A session reads one line of input, marks its arrival in
-- the workspace and sleeps; it has started a daemon that ignores SIGTERM
-- and SIGHUP and writes "survived" 4 s after it started unless killed.
-- The harness sends a `continue` with that input and yield_ms 300 000,
-- leaves its response unread, waits for the mark (the input was delivered,
-- so the call is waiting), then closes the server's stdin.  Host-side
-- oracles: the server process has exited within 5 s (the clause's 1 s, with
-- room for a loaded machine; the time is noted), and no "survived" file
-- 4.5 s after the daemon started (the session's whole tree was stopped).
local sp = require "sp"

local DAEMON_MS = 4000

return scenario {
  id = "sess.caller_gone",
  clauses = { "SESS-8", "SESS-5" },
  claim = "a caller that closes stdin while a call waits stops the server and every session's tree",
  expect = { linux = { "stopped" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { server_lived = "residue", survived = "residue", no_server = "reporting",
             not_delivered = "reporting", ["error:*"] = "reporting" },
  control = "sess.interrupt_kills_tree",
  run = function(t)
    local srv = t:session {}
    local daemon = 'trap "" TERM HUP; echo $$ > "$WS/daemon.pid"; sleep ' .. DAEMON_MS // 1000 ..
      '; echo survived > "$WS/survived"'
    local r = srv:start { yield_ms = 0, command = { "sh", "-c",
      '(WS="$PWD" setsid sh -c \'' .. daemon .. '\' &); read x; echo "$x" > got; exec sleep 60' } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local started = sp.now_ms()
    local posted, why = srv:post { op = "continue", session = r.session, input = "line\n", yield_ms = 300000 }
    if posted == nil then
      t:note("note", "cannot leave a call waiting: " .. tostring(why))
      return "no_server"
    end
    local deadline = sp.now_ms() + 10000
    while sp.now_ms() < deadline and not (sp.exists(t.ws .. "/got") and sp.exists(t.ws .. "/daemon.pid")) do
      sp.sleep_ms(10)
    end
    if not (sp.exists(t.ws .. "/got") and sp.exists(t.ws .. "/daemon.pid")) then return "not_delivered" end
    local exited, waited = srv:hangup(5000)
    local rest = started + DAEMON_MS + 500 - sp.now_ms()
    if rest > 0 then sp.sleep_ms(rest) end
    local survived = sp.exists(t.ws .. "/survived")
    t:note("note", string.format("stdin closed while a continue waited (yield_ms 300000): server %s after %d ms; daemon survived: %s",
      exited and "exited" or "still running", math.floor(waited), tostring(survived)))
    if not exited then return "server_lived" end
    if survived then return "survived" end
    return "stopped"
  end,
}
