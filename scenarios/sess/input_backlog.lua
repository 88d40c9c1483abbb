-- SESS-1's input bound counts the backlog: at most 1 MiB of input waits
-- for a command, the bytes it has not read yet of earlier calls included.
-- The command sleeps 5 s before reading anything; 600 KiB of input is
-- taken, then 600 KiB more (each chunk under 1 MiB, together over it) must
-- be refused by name (continue.input), nothing of it written.  Host-side
-- oracle: what the command finally read, counted into the workspace.
local KIB = 1024

return scenario {
  id = "sess.input_backlog",
  clauses = { "SESS-1" },
  claim = "input that would leave more than 1 MiB waiting for a command, its unread backlog included, is refused and nothing of it written",
  expect = { linux = { "bounded" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { accepted = "reporting", first_refused = "reporting", ["written:*"] = "reporting",
             ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session {}
    local r = srv:start { yield_ms = 0, command = { "sh", "-c",
      'sleep 5; wc -c > "$PWD/read"' } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local a = srv:continue { session = r.session, input = string.rep("a", 600 * KIB), yield_ms = 0 }
    local b = srv:continue { session = r.session, input = string.rep("b", 600 * KIB), yield_ms = 0 }
    t:note("note", "first: " .. (a.error or "taken") .. "; second: " .. (b.error or "taken"))
    if a.error then return "first_refused" end
    if not (b.error and b.error:find("continue.input", 1, true)) then return "accepted" end
    local c = srv:continue { session = r.session, eof = true, yield_ms = 0 }
    if c.error then return "error:" .. c.error:gsub("%s.*", "") end
    local done = srv:collect(r.session, { max_ms = 20000 })
    local got = tonumber((sp.read(t.ws .. "/read") or ""):match("%d+"))
    t:note("note", string.format("the command read %s bytes (exited %s)", tostring(got), tostring(done.last.exited)))
    if got ~= 600 * KIB then return "written:" .. tostring(got) end
    return "bounded"
  end,
}
