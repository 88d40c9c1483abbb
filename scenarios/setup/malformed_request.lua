-- Malformed requests are refused with exit status 2 and run nothing.  Each
-- request below is the valid one (the positive control: it runs and leaves
-- its mark in the workspace) with one defect: an unknown field at the top
-- and deep in the profile, a wrong version, a wrong type, a duplicate key,
-- a relative path, a ".." component, a NUL (escaped and in the command),
-- invalid UTF-8 (a stray byte, an overlong form), a duplicate variable in
-- env, broken JSON, trailing bytes, more than 1 MiB, an empty
-- command, an env name holding '=', and the lenient reader's family: a
-- control byte before a value (the write root it once widened), before a
-- key, after a value and inside a string, a byte order mark, numbers cJSON
-- reads but JSON has not (leading zero, hex), a lone surrogate, nesting
-- past the limit; duplicate keys that are not next to each other at every
-- level (top, profile, filesystem, write root, runtime, limits, env; the
-- network object has one key, so its duplicate is adjacent); a runtime
-- parent beginning with '~'; a protected name ending in '/'.  The mark must
-- never appear, and the refusals of the deep unknown field, the NULs, the
-- duplicate variable, the control byte before a value and every case
-- added with them must name their field (REQ-6: a NUL refused only
-- because two parsers disagree about the string would name none).  The
-- command is the probe writing the mark (no shell: the same on every OS);
-- a defect in the command sits in the text it writes (command[3]), so a
-- runner that ran it anyway leaves the mark.
local function js(s) return sp.json_encode(s) end

return scenario {
  id = "setup.malformed_request",
  clauses = { "REQ-1", "REQ-2", "REQ-3", "REQ-4", "REQ-5", "REQ-6" },
  claim = "a malformed request is refused with exit status 2, naming the field, and nothing runs",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  impact = { ["ran:*"] = "hardening", field_not_named = "reporting", ["not_refused:*"] = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    local mark = t.ws .. "/ran"
    -- the command as JSON text, `text` (raw JSON string content) what it writes
    local function cmd_writing(text)
      return string.format('[%s,"write",%s,"x%s"]', js(t.paths.probe), js(mark), text)
    end
    -- the request as text, so each defect is exactly the one intended
    local function request(o)
      o = o or {}
      local root = o.root or js(t.ws)
      local wr = string.format('{"root":%s%s}', root, o.wr_extra or "")
      local fs = string.format('{"kind":"restricted","read_roots":["/"],"write_roots":[%s],"allow_temp":true%s}', wr,
        o.fs_extra or "")
      local env = o.env or string.format('{"PATH":%s}', js("/usr/local/bin:/usr/bin:/bin"))
      local cmd = o.command or cmd_writing("")
      return string.format('{%s"version":%s,"command":%s,"cwd":%s,"env":%s,"timeout_ms":%s,' ..
        '"profile":{"filesystem":%s,"network":%s%s}%s}%s',
        o.head or "", o.version or "1", cmd, o.cwd or js(t.ws), env, o.timeout or "10000", fs,
        o.network or '{"mode":"deny"}', o.profile_extra or "", o.tail or "", o.after or "")
    end
    local cases = {
      { "unknown field", request { tail = ',"bogus":1' } },
      { "unknown nested field", request { wr_extra = ',"rooot":"/x"' }, "write_roots[0].rooot" },
      { "version 2", request { version = "2" } },
      { "wrong type", request { timeout = '"10000"' } },
      { "duplicate key", request { head = '"version":1,' } },
      { "relative path", request { root = '"ws"' } },
      { "dot-dot", request { root = js(t.ws .. "/../ws") } },
      { "escaped NUL", request { cwd = js(t.ws):sub(1, -2) .. '\\u0000x"' }, "cwd:" },
      { "NUL in command", request { command = cmd_writing('\\u0000') }, "command[3]:" },
      { "invalid UTF-8", request { command = cmd_writing(' #\255') } },
      -- E0 80 AF: '/' in three bytes, which UTF-8 forbids (overlong)
      { "overlong UTF-8", request { command = cmd_writing(' #\224\128\175') } },
      { "duplicate env key", request { env = string.format('{"PATH":%s,"PATH":%s}', js("/usr/bin:/bin"), js("/bin")) },
        "env.PATH" },
      { "broken JSON", request():sub(1, -3) },
      { "trailing bytes", request { after = " {}" } },
      { "over 1 MiB", request { env = string.format('{"PATH":%s,"BIG":"%s"}', js("/usr/bin:/bin"), string.rep("a", 1100000)) } },
      { "empty command", request { command = "[]" } },
      { "env name with =", request { env = string.format('{"PATH":%s,"A=B":"c"}', js("/usr/bin:/bin")) } },
      -- bytes cJSON would read leniently: a control byte where only JSON
      -- whitespace may stand once carried "\u0000" (and a cut-off "..")
      -- past the scan and widened the write root to the workspace itself
      { "control byte before a value", request { root = "\031" .. js(t.ws):sub(1, -2) .. '\\u0000/sub"' },
        "write_roots[0].root" },
      { "control byte before a key", request { head = "\011" } },
      { "control byte after a value", request { version = "1\001" } },
      { "control byte in a string", request { command = cmd_writing('\002') } },
      { "byte order mark", "\239\187\191" .. request() },
      { "leading zero", request { version = "01" } },
      { "hex number", request { timeout = "0x10" } },
      { "lone surrogate", request { command = cmd_writing(' #\\ud800') } },
      { "nested too deeply", request { tail = ',"bogus":' .. string.rep("[", 70) .. string.rep("]", 70) },
        "nested deeper" },
      -- a duplicate is refused wherever it stands in its object, at every
      -- level, not only next to the first (the second would win or lose
      -- depending on the reader)
      { "duplicate key, not adjacent: top", request { tail = ',"version":1' }, "version:" },
      { "duplicate key, not adjacent: profile",
        request { profile_extra = ',"block_unix_sockets":false,"network":{"mode":"allow"}' }, "profile.network:" },
      { "duplicate key, not adjacent: filesystem", request { fs_extra = ',"kind":"unrestricted"' },
        "profile.filesystem.kind:" },
      { "duplicate key, not adjacent: write root",
        request { wr_extra = ',"protected_metadata_names":[],"root":"/"' }, "write_roots[0].root:" },
      { "duplicate key: network", request { network = '{"mode":"deny","mode":"allow"}' }, "profile.network.mode:" },
      { "duplicate key, not adjacent: runtime", request { profile_extra = string.format(
          ',"runtime":{"parent":%s,"max_age_s":60,"parent":%s}', js(t.tmp .. "/rt"), js(t.tmp .. "/rt2")) },
        "profile.runtime.parent:" },
      { "duplicate key, not adjacent: limits",
        request { profile_extra = ',"limits":{"pids":256,"open_files":256,"pids":512}' }, "profile.limits.pids:" },
      { "duplicate key, not adjacent: env",
        request { env = string.format('{"PATH":%s,"A":"1","PATH":%s}', js("/usr/bin:/bin"), js("/bin")) }, "env.PATH:" },
      -- '~' is not absolute and never expanded (REQ-3)
      { "runtime parent under ~", request { profile_extra = ',"runtime":{"parent":"~/.cache/sandproof-malformed"}' },
        "profile.runtime.parent:" },
      -- a protected name is a plain relative name: no trailing '/' (META-1)
      { "protected name ending in /", request { wr_extra = ',"protected_metadata_names":[".git/hooks/"]' },
        "protected_metadata_names[0]:" },
    }
    -- positive control: the valid request runs
    local r0 = t:sandbox { raw_request = request(), command = { "true" } } -- command: unused, t:sandbox wants one
    if r0.outcome.kind ~= "success" or not sp.exists(mark) then
      t:note("note", "valid request: " .. tostring(r0.outcome.kind) .. " " .. tostring(r0.outcome.stderr):sub(1, 300))
      return "control_failed"
    end
    assert(sp.unlink(mark))
    local lines = {}
    for _, c in ipairs(cases) do
      local r = t:sandbox { raw_request = c[2], command = { "true" } }
      local err = tostring(r.outcome.stderr or ""):gsub("\n.*", "")
      lines[#lines + 1] = string.format("%s: exit %s, %s", c[1], tostring(r.runner_exit), err:sub(1, 160))
      if sp.exists(mark) then
        t:note("note", table.concat(lines, "\n"))
        return "ran:" .. c[1]
      end
      if r.runner_exit ~= 2 or r.outcome.kind ~= "request_refused" then
        t:note("note", table.concat(lines, "\n"))
        return "not_refused:" .. c[1]
      end
      if c[3] and not err:find(c[3], 1, true) then
        t:note("note", table.concat(lines, "\n"))
        return "field_not_named"
      end
    end
    t:note("note", table.concat(lines, "\n"))
    return "refused"
  end,
}
