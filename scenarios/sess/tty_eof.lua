-- SESS-1 with tty: `eof` ends a terminal session's input.  A pty has no end
-- of its own; the line discipline makes one of VEOF at the start of a line.
-- The command reads the terminal to its end twice (`cat`, then `cat`
-- again): after a full line and eof, after a partial line and eof.
-- Host-side oracle: the files the command writes as each end comes, and
-- what it read.  Positive control: its stdin is a terminal.
return scenario {
  id = "sess.tty_eof",
  clauses = { "SESS-1" },
  claim = "eof on a terminal session reaches the command, after a full line and after a partial one, and the terminal takes input after it",
  expect = { linux = { "ended" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { no_tty = "fidelity", no_eof = "fidelity", second_refused = "fidelity",
             misread = "fidelity", ["error:*"] = "reporting" },
  control = "sess.tty_confined",
  run = function(t)
    local srv = t:session {}
    local r = srv:start { tty = true, yield_ms = 0, command = { "sh", "-c",
      '[ -t 0 ] && : > "$PWD/isatty"; cat > "$PWD/typed"; : > "$PWD/end1"; ' ..
      'cat >> "$PWD/typed"; : > "$PWD/end2"' } }
    if r.error then return "error:" .. r.error:gsub("%s.*", "") end
    local function waitfor(name)
      local deadline = sp.now_ms() + 10000
      while not sp.exists(t.ws .. "/" .. name) and sp.now_ms() < deadline do
        srv:continue { session = r.session, yield_ms = 100 }
      end
      return sp.exists(t.ws .. "/" .. name)
    end
    local a = srv:continue { session = r.session, input = "hello\n", eof = true, yield_ms = 0 }
    if a.error then return "error:" .. a.error:gsub("%s.*", "") end
    local end1 = waitfor("end1")
    if not sp.exists(t.ws .. "/isatty") then return "no_tty" end
    if not end1 then return "no_eof" end
    local b = srv:continue { session = r.session, input = "partial", eof = true, yield_ms = 0 }
    if b.error then
      t:note("note", "input after the first eof: " .. b.error)
      return "second_refused"
    end
    local end2 = waitfor("end2")
    local typed = sp.read(t.ws .. "/typed")
    t:note("note", string.format("end2 %s; the command read %q", tostring(end2), tostring(typed)))
    if not end2 then return "no_eof" end
    if typed ~= "hello\npartial" then return "misread" end
    return "ended"
  end,
}
