-- Captured output is lossless: every byte value 0..255 (NUL, control bytes,
-- bytes that are not UTF-8), printed on stdout and in reverse on stderr,
-- comes back exactly, with the true byte counts; ordinary text comes back
-- as text.  A runner that replaced invalid UTF-8 (U+FFFD) or cut a string
-- at NUL fails.  This is a capability: the unconfined control passes it.
local function all_bytes(from, to, step)
  local fmt, bytes = {}, {}
  for i = from, to, step do
    fmt[#fmt + 1] = string.format("\\%03o", i)
    bytes[#bytes + 1] = string.char(i)
  end
  return table.concat(fmt), table.concat(bytes)
end

return scenario {
  id = "proc.output_binary_lossless",
  clauses = { "OUT-7", "PROC-7" },
  claim = "captured stdout and stderr keep every byte exactly, whatever its value",
  unconfined_passes = true,
  expect = { linux = { "lossless" }, macos = { "lossless" }, windows = { unsupported = "the bytes are printed by a POSIX shell (sh, printf), which native Windows lacks; the probe prints no chosen bytes" } },
  impact = { altered = "reporting", miscounted = "reporting", text_not_text = "reporting", ["run_failed:*"] = "fidelity" },
  control = "proc.exit_code_exact",
  run = function(t)
    local fout, bout = all_bytes(0, 255, 1)
    local ferr, berr = all_bytes(255, 0, -1)
    local r = t:sandbox { command = { "sh", "-c", "printf '" .. fout .. "'; printf '" .. ferr .. "' >&2" } }
    local o = r.outcome
    t:note("note", string.format("kind %s stdout %d bytes (%s, %s) stderr %d bytes (%s, %s)",
      tostring(o.kind), #(o.stdout or ""), tostring(o.stdout_encoding), tostring(o.stdout_bytes),
      #(o.stderr or ""), tostring(o.stderr_encoding), tostring(o.stderr_bytes)))
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    if o.stdout ~= bout or o.stderr ~= berr then return "altered" end
    if o.stdout_bytes ~= nil and (o.stdout_bytes ~= 256 or o.stderr_bytes ~= 256) then
      return "miscounted"
    end
    -- positive control: ordinary text stays readable text
    local c = t:sandbox { command = { "sh", "-c", "printf 'r\\303\\251sum\\303\\251\\tok\\n'" } }
    if c.outcome.stdout ~= "r\xc3\xa9sum\xc3\xa9\tok\n" then return "control_failed" end
    if c.outcome.stdout_encoding ~= nil and c.outcome.stdout_encoding ~= "utf-8" then
      return "text_not_text"
    end
    return "lossless"
  end,
}
