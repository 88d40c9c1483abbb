-- SESS-7, forced pid reuse: the server runs as pid 1 of a user and pid
-- namespace the harness owns, so its first session's worker is pid 2
-- there.  Once that session has exited (its worker reaped), the harness
-- joins the namespace (nsenter, keeping its credentials: setgroups is
-- denied in a user namespace an unprivileged user made), sets ns_last_pid to 1 and starts a fresh
-- process, which gets pid 2: the reaped worker's number.  Then it stops and
-- interrupts the finished session.  The fresh process traps SIGTERM, SIGINT
-- and SIGHUP (and reports its own status): a server that signals by number
-- hits it; one that signals through a pidfd cannot.
return scenario {
  id = "sess.pid_reuse",
  clauses = { "SESS-7" },
  claim = "stopping or interrupting a session whose worker was reaped never signals the process that reused its pid",
  expect = { linux = { "not_signalled" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { signalled = "escape", ["error:*"] = "reporting" },
  control = "sess.stdin_finished",
  run = function(t)
    local nsenter = sp.exists("/usr/bin/nsenter") and "/usr/bin/nsenter" or "/bin/nsenter"
    if not sp.exists(nsenter) then t:skip("nsenter (util-linux) is not installed") end
    local srv = t:session { pid_namespace = true }
    local r = srv:start { command = { "true" }, yield_ms = 10000 }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    if not r.exited then r = srv:collect(r.session, { max_ms = 10000 }).last end
    if not r.exited then return "control_failed" end
    local init = srv:server_pid()
    if not init then return "control_failed" end
    -- the fresh process: pid 2 in the namespace, traps the signals a
    -- server would send, reports whatever ends it; bounded (8 s)
    local script = 'echo 1 > /proc/sys/kernel/ns_last_pid || exit 1; ' ..
      '( trap "echo SIGNALLED; exit 0" TERM INT HUP; i=0; while [ $i -lt 160 ]; do sleep 0.05; i=$((i+1)); done ) & ' ..
      'echo "pid=$!"; wait $!; echo "status=$?"'
    local fresh, err = sp.coproc { argv = { nsenter, "--preserve-credentials", "-t", tostring(init), "-U", "-p", "/bin/sh", "-c", script } }
    if not fresh then return "error:nsenter:" .. tostring(err) end
    local line = fresh:read_line(10000) or ""
    t:note("note", string.format("server init host pid %d; fresh process: %s", init, line))
    if line ~= "pid=2" then
      fresh:signal("SIGKILL")
      t:note("note", "pid reuse not forced (the fresh process is not pid 2)")
      return "control_failed"
    end
    local s1 = srv:stop(r.session)
    local s2 = srv:continue { session = r.session, interrupt = true, yield_ms = 0 }
    local s3 = srv:stop_all()
    local after = fresh:read_line(1000)
    t:note("note", string.format("stop: %s; interrupt: %s; stop_all: %s; the fresh process then: %s",
      s1.error or "answered", s2.error or "answered", s3.error or "answered", tostring(after)))
    fresh:signal("SIGKILL")
    fresh:wait(5000)
    if after then return "signalled" end
    return "not_signalled"
  end,
}
