-- SESS-8: SIGKILL of the session server leaves no worker and no command
-- of its sessions running.  Two sessions (one on a terminal) each start a
-- daemon that ignores SIGTERM and SIGHUP and writes "survived" into the
-- workspace 4 s after it started unless killed; the harness SIGKILLs the
-- server once both daemons run.  Host-side oracle: no "survived" file 4.5 s
-- later (the workers die with the server, PR_SET_PDEATHSIG; the sandboxes
-- with their workers, PROC-10).
return scenario {
  id = "sess.server_killed",
  clauses = { "SESS-8", "PROC-10" },
  claim = "a SIGKILLed session server leaves no worker or command of its sessions running",
  expect = { linux = { "nothing_left" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { survived = "residue", no_server = "reporting", ["error:*"] = "reporting" },
  control = "sess.interrupt_kills_tree",
  run = function(t)
    local srv = t:session {}
    for i = 1, 2 do
      local daemon = 'trap "" TERM HUP; echo $$ > "$WS/daemon-' .. i .. '.pid"; sleep 4; ' ..
        'echo survived > "$WS/survived-' .. i .. '"'
      local r = srv:start { tty = i == 2, yield_ms = 0, command = { "sh", "-c",
        '(WS="$PWD" setsid sh -c \'' .. daemon .. '\' &); exec sleep 30' } }
      if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    end
    local deadline = sp.now_ms() + 10000
    while sp.now_ms() < deadline and not (sp.exists(t.ws .. "/daemon-1.pid") and sp.exists(t.ws .. "/daemon-2.pid")) do
      sp.sleep_ms(20)
    end
    if not (sp.exists(t.ws .. "/daemon-1.pid") and sp.exists(t.ws .. "/daemon-2.pid")) then return "control_failed" end
    local pid = srv:server_pid()
    if not pid then return "no_server" end
    -- kill_leftovers = false: the harness is a subreaper, and a worker the
    -- server left would be reparented to it and swept as the kill's own
    -- leftover, hiding exactly what this scenario looks for
    local k = t:spawn { argv = { "/bin/sh", "-c", "kill -KILL " .. math.floor(pid) }, timeout_ms = 10000,
                        kill_leftovers = false }
    sp.sleep_ms(4500) -- past the daemons' 4 s
    local left = {}
    for i = 1, 2 do
      if sp.exists(t.ws .. "/survived-" .. i) then left[#left + 1] = i end
    end
    t:note("note", string.format("server pid %d SIGKILLed (kill exit %s); daemons that survived: %s",
      pid, tostring(k.code), table.concat(left, " ")))
    if #left > 0 then return "survived" end
    return "nothing_left"
  end,
}
