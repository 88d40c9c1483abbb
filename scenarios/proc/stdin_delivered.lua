-- stdin is the request's stdin, then EOF.  The command copies its stdin
-- into the workspace and then marks that it saw EOF; the oracle is the
-- host's copy, byte for byte.  The text is larger than a pipe buffer
-- (300 KiB, with multi-byte UTF-8), so a runner that wrote it all before
-- reading the command's output, or never closed it, would hang into the
-- timeout instead.
return scenario {
  id = "proc.stdin_delivered",
  clauses = { "PROC-8" },
  claim = "the command reads exactly the request's stdin followed by EOF",
  expect = { linux = { "delivered" }, macos = { "delivered" }, windows = { unsupported = "the command copying its stdin is a POSIX shell (sh, cat), which native Windows lacks; the probe has no op that reads stdin" } },
  impact = { altered = "fidelity", did_not_run = "fidelity", no_eof = "fidelity", ["run_failed:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local line = "stdin line — ünïcödé ✓ 0123456789\n"
    local text = string.rep(line, math.ceil(300 * 1024 / #line))
    local r = t:sandbox { stdin = text, timeout_ms = 10000, command = { "sh", "-c",
      'cat > "$PWD/in" && echo eof > "$PWD/eof" && echo visible' } }
    local o = r.outcome
    local got = sp.read(t.ws .. "/in")
    t:note("note", string.format("kind %s, %d bytes sent, %s received, eof %s", tostring(o.kind), #text,
      got and tostring(#got) or "none", tostring(sp.exists(t.ws .. "/eof"))))
    if o.kind == "timed_out" then return "no_eof" end
    if not got then return "did_not_run" end
    if got ~= text then return "altered" end
    if not sp.exists(t.ws .. "/eof") then return "no_eof" end
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    return "delivered"
  end,
}
