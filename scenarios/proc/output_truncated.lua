-- Capture is bounded per stream.  With output_limit_bytes 64 KiB the probe
-- floods 8 MiB on stderr (and in a second run on stdout): the outcome must
-- keep at most the bound, count every byte of the raw stream
-- (stderr_bytes is exactly what was written), and set truncated.  The
-- positive control: 1000 bytes under the same bound come back whole (and
-- are counted, with truncated false: that part is the claim).  And what is
-- kept is exactly the stream's first L bytes (here L = 8): a binary stream
-- (base64) keeps all 8, also when the 8th is the first byte of a UTF-8
-- character; a text stream cut inside a character keeps the text form
-- without that character's first bytes.
local LIMIT, FLOOD = 65536, 8 * 1024 * 1024

return scenario {
  id = "proc.output_truncated",
  clauses = { "PROC-7" },
  claim = "output past output_limit_bytes is dropped but counted exactly, and truncated is set",
  expect = { linux = { "bounded" }, macos = { "bounded" }, windows = { unsupported = "the exact-prefix runs print chosen bytes by a POSIX shell (sh, printf), which native Windows lacks" } },
  impact = { miscounted = "reporting", not_counted = "reporting", not_first_bytes = "reporting", truncation_not_reported = "reporting", unbounded = "reporting", ["run_failed:*"] = "fidelity" },
  control = "proc.output_binary_lossless",
  run = function(t)
    local function flood(n, stream)
      local r = t:ran(t:sandbox { output_limit_bytes = LIMIT, probe = { { "flood", n, stream } } })
      local o = r.outcome
      t:note("note", string.format("%d bytes on %s: kind %s stdout %d/%s stderr %d/%s truncated %s", n, stream,
        tostring(o.kind), #(o.stdout or ""), tostring(o.stdout_bytes), #(o.stderr or ""),
        tostring(o.stderr_bytes), tostring(o.truncated)))
      return r, o
    end
    -- positive control: under the bound nothing is lost (what the outcome
    -- says about it is the claim: counted, not truncated)
    local _, c = flood(1000, "stderr")
    if c.kind ~= "success" or #(c.stderr or "") ~= 1000 then
      t:note("note", "positive control failed: 1000 bytes on stderr did not come back whole")
      return "control_failed"
    end
    if type(c.stderr_bytes) ~= "number" or c.truncated == nil then return "not_counted" end
    if c.stderr_bytes ~= 1000 or c.truncated ~= false then return "miscounted" end
    local _, e = flood(FLOOD, "stderr")
    if e.kind ~= "success" then return "run_failed:" .. tostring(e.kind) end
    if type(e.stderr_bytes) ~= "number" then return "not_counted" end
    if #(e.stderr or "") > LIMIT then return "unbounded" end
    if e.stderr_bytes ~= FLOOD then return "miscounted" end
    if e.truncated ~= true then return "truncation_not_reported" end
    -- stdout: the sentinel comes first and stays, the flood is cut
    local r, o = flood(FLOOD, "stdout")
    if #(o.stdout or "") > LIMIT then return "unbounded" end
    if not (type(o.stdout_bytes) == "number" and o.stdout_bytes > FLOOD) or o.truncated ~= true then
      return "miscounted"
    end
    -- the first L bytes exactly, binary and text cut inside a character
    local cases = {
      { "\\377abcdef\\303\\251xyz", "\255abcdef\195", 12, "base64" },
      { "abcdefg\\303\\251xyz", "abcdefg", 12, "utf-8" },
    }
    for _, c in ipairs(cases) do
      local x = t:sandbox { output_limit_bytes = 8, command = { "sh", "-c", "printf '" .. c[1] .. "'" } }.outcome
      t:note("note", string.format("limit 8, %d bytes: kind %s stdout %q (%s, %s) truncated %s", c[3],
        tostring(x.kind), tostring(x.stdout), tostring(x.stdout_encoding), tostring(x.stdout_bytes),
        tostring(x.truncated)))
      if x.kind ~= "success" then return "run_failed:" .. tostring(x.kind) end
      if x.stdout_bytes ~= c[3] or x.truncated ~= true then return "miscounted" end
      if x.stdout ~= c[2] or (x.stdout_encoding ~= nil and x.stdout_encoding ~= c[4]) then return "not_first_bytes" end
    end
    return "bounded"
  end,
}
