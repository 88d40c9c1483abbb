-- PRIV-2/PRIV-4: TIOCSTI (pushing input into a terminal, typed commands the
-- terminal's reader would run) fails with EPERM, even on a terminal the
-- command owns.  script(1) gives the probe a real pty as its controlling
-- terminal and stdin (the probe's JSON goes to fd 3, the capture pipe), so
-- without the sandbox the injection works; the positive control is that
-- /dev/tty opened at all (no ENXIO: there was a terminal to attack).
-- Host-side oracle besides the probe's word: an injected "#" is echoed by
-- the pty into script's transcript, which is the command's stdout.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "priv.tiocsti",
  clauses = { "PRIV-2", "PRIV-3", "PRIV-4" },
  claim = "the command cannot inject terminal input with TIOCSTI, even into a pty it owns (EPERM)",
  expect = { linux = { "refused" },
             macos = { unsupported = "the pty comes from util-linux script(1) -c, which macOS's BSD script(1) lacks (not ported yet)" },
             windows = { unsupported = "TIOCSTI is a POSIX terminal ioctl, and the pty comes from util-linux script(1) run by a POSIX shell, which native Windows lacks" } },
  impact = { injected = "hardening", ["errno_*"] = "reporting", error = "reporting", unreported = "reporting" },
  control = "proc.exit_code_exact",
  run = function(t)
    if not (sp.exists("/usr/bin/script") or sp.exists("/bin/script")) then
      t:skip("script(1) (util-linux) is not installed: no pty to give the probe")
    end
    -- The probe's line can be lost on a loaded machine (seen against none
    -- about once in eight runs at --jobs 4): a lost line observes nothing,
    -- so the run is repeated, at most three times, each loss noted.
    local r, c
    for attempt = 1, 3 do
      r = t:ran(t:sandbox { command = { "sh", "-c",
        'script -qec "\\"$0\\" tiocsti >&3" /dev/null 3>&1', t.paths.probe },
        op_names = { "tiocsti" } })
      c = r.op.tiocsti
      if c then break end
      t:note("note", string.format("attempt %d: no line from the probe (stdout %d bytes)", attempt, #r.stdout))
    end
    if not c then return "error" end
    local transcript = {}
    for line in r.stdout:gmatch("[^\n]+") do
      if line:sub(1, 1) ~= "{" then transcript[#transcript + 1] = line end
    end
    local echoed = table.concat(transcript, "\n"):find("#", 1, true) ~= nil
    local function v(x) return (x == nil or x == sp.null) and "-" or tostring(x) end
    t:note("note", string.format("tty ok=%s errno=%s; fd0 ok=%s errno=%s; echo of the injection seen: %s",
      v(c.tty_ok), v(c.tty_errno), v(c.fd0_ok), v(c.fd0_errno), tostring(echoed)))
    if c.ok or c.tty_ok or c.fd0_ok or echoed then return "injected" end
    if c.tty_errno == "ENXIO" or c.tty_errno == "ENOENT" then
      t:note("note", "positive control failed: the probe had no controlling terminal")
      return "control_failed"
    end
    if c.tty_errno ~= "EPERM" then return "errno_" .. tostring(c.tty_errno) end
    if not reported(r.outcome, "ioctl") then return "unreported" end
    return "refused"
  end,
}
