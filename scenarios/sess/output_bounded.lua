-- SESS-3: what a session keeps, and what one call returns, is bounded by
-- the ring (here --output-bytes 65536), whatever the command writes and
-- however long the call waits; the bytes dropped are counted exactly, call
-- by call (the output comes in bursts, so several calls drop bytes); the
-- server's own memory stays bounded while three sessions each write 24 MiB.
-- Host-side oracles: the server's resident size (/proc/PID/status) after
-- every call, and the byte count: for each session, the output of all its
-- calls plus their dropped_bytes is exactly what the command wrote.
local RING, SIZE, N = 65536, 24 * 1024 * 1024, 3
-- SESS-3 bound for 3 sessions: 3 x (ring + 1 MiB input + 2 MiB outcome) + a ring + 80 MiB
local RSS_MAX_KIB = (N * (RING + 3 * 1024 * 1024) + RING + 80 * 1024 * 1024) // 1024

return scenario {
  id = "sess.output_bounded",
  clauses = { "SESS-3" },
  claim = "a session's retained output and each call's output are bounded by the ring, drops are counted exactly, and the server's memory stays bounded under a flood",
  expect = { linux = { "bounded" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { unbounded_call = "reporting", miscounted = "reporting", rss_over = "reporting",
             not_exited = "reporting", ["error:*"] = "reporting" },
  run = function(t)
    local srv = t:session { output_bytes = RING }
    local ids, peak = {}, 0
    local function sample() peak = math.max(peak, srv:rss_kib() or 0) end
    for i = 1, N do
      -- exactly SIZE bytes in four bursts a second apart (each past the
      -- ring: calls in between drop bytes apart, so a dropped count that a
      -- call does not reset is seen), then a last line that must arrive whole
      local burst = string.format("yes %d | head -c %d", i, SIZE // 4)
      local r = srv:start { command = { "sh", "-c", string.format("%s; sleep 1; %s; sleep 1; %s; sleep 1; %s; echo; echo END%d",
                                                                 burst, burst, burst, burst, i) },
                            yield_ms = 0 }
      if r.error then return "error:" .. r.error:gsub("%s.*", "") end
      ids[i] = r.session
    end
    local results = {}
    for i, id in ipairs(ids) do
      results[i] = srv:collect(id, { yield_ms = 300, max_ms = 90000, each = sample })
    end
    for i, c in ipairs(results) do
      local expect = SIZE + #string.format("\nEND%d\n", i)
      t:note("note", string.format("session %d: %d calls, largest call %d bytes, %d received + %d dropped = %d (command wrote %d), exited %s",
        ids[i], c.calls, c.max_call, #c.output, c.dropped, #c.output + c.dropped, expect, tostring(c.last.exited)))
      if c.last.error then return "error:" .. c.last.error:gsub("%s.*", "") end
      if not c.last.exited then return "not_exited" end
      if c.max_call > RING then return "unbounded_call" end
      if #c.output + c.dropped ~= expect or c.output:sub(-5) ~= string.format("END%d\n", i) then
        return "miscounted"
      end
    end
    t:note("note", string.format("server peak RSS %d KiB (bound %d KiB)", peak, RSS_MAX_KIB))
    if peak > RSS_MAX_KIB then return "rss_over" end
    return "bounded"
  end,
}
