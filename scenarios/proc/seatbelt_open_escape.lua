-- macOS: `open` (LaunchServices) and Apple Events start programs as
-- children of launchd, outside the sandbox: a command that may reach
-- LaunchServices escapes every file rule at once.  The harness builds a
-- tiny application outside the workspace whose executable writes a file
-- in t.outside; the command runs `/usr/bin/open -n -a APP` and
-- `osascript` telling the same application to run.  Host-side oracle: no
-- file appears in t.outside within 10 s.  Positive controls: the host
-- itself can launch a twin application (writing its own marker) the same
-- way, else LaunchServices is unusable here (no GUI session: skip); and
-- the workspace write in the same run lands.  Fails against: a profile
-- allowing mach-lookup of com.apple.coreservices.launchservicesd or
-- appleevents; the unconfined control.  Off macOS (no LaunchServices):
-- unsupported.
local sp = require "sp"

-- An application bundle at dir/NAME.app whose executable (a shell script)
-- writes `marker`.  Made by the harness, outside the workspace.
local function make_app(t, name, marker)
  local app = t.tmp .. "/apps/" .. name .. ".app"
  for _, d in ipairs { t.tmp .. "/apps", app, app .. "/Contents", app .. "/Contents/MacOS" } do
    if not sp.exists(d) then assert(sp.mkdir(d)) end
  end
  assert(sp.write(app .. "/Contents/Info.plist", table.concat {
    '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>\n',
    "<key>CFBundleExecutable</key><string>run</string>\n",
    "<key>CFBundleIdentifier</key><string>invalid.sandproof.", name, ".", sp.getpid(), "</string>\n",
    "<key>CFBundlePackageType</key><string>APPL</string>\n",
    "<key>LSBackgroundOnly</key><true/>\n</dict></plist>\n" }))
  local exe = app .. "/Contents/MacOS/run"
  assert(sp.write(exe, "#!/bin/sh\necho escaped > '" .. marker .. "'\n"))
  assert(sp.chmod(exe, tonumber("755", 8)))
  return app
end

local function wait_for(path, ms)
  for _ = 1, ms // 100 do
    if sp.exists(path) then return true end
    sp.sleep_ms(100)
  end
  return sp.exists(path)
end

return scenario {
  id = "proc.seatbelt_open_escape",
  clauses = { "FS-1" },
  claim = "the command cannot have LaunchServices or Apple Events start a program outside the sandbox",
  expect = { linux = { unsupported = "macos only: LaunchServices and Apple Events are macOS's" },
             macos = { "contained" },
             windows = { unsupported = "macos only: LaunchServices and Apple Events are macOS's" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    if t.os ~= "macos" then
      t:unsupported("unsupported on " .. tostring(t.os) .. ": no LaunchServices (macOS's /usr/bin/open)")
    end
    if not sp.exists("/usr/bin/open") then t:skip("/usr/bin/open is missing") end
    local ctl_marker, marker = t.tmp .. "/host-launched", t.outside .. "/escaped"
    local twin = make_app(t, "sandproof-ctl", ctl_marker)
    local app = make_app(t, "sandproof-esc", marker)
    sp.spawn { argv = { "/usr/bin/open", "-n", "-a", twin }, timeout_ms = 15000 }
    if not wait_for(ctl_marker, 10000) then
      t:skip("the host itself could not launch an application with open (no GUI session?)")
    end
    local r = t:ran(t:sandbox { command = { "sh", "-c",
      '"$0" write "$1" ok; /usr/bin/open -n -a "$2"; echo "open=$?" >&2; ' ..
      '/usr/bin/osascript -e "tell application \\"$2\\" to run"; echo "osascript=$?" >&2',
      t.paths.probe, t.ws .. "/ok", app }, op_names = { "control" } })
    local escaped = wait_for(marker, 10000)
    t:note("note", string.format("host launch: ok; from the sandbox: %s; stderr: %s",
      escaped and "LAUNCHED" or "nothing within 10 s", (r.stderr or ""):sub(-300)))
    if escaped then return "escaped" end
    if not (r.op.control and r.op.control.ok and sp.read(t.ws .. "/ok") == "ok") then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "contained"
  end,
}
