-- When the monitor can no longer vouch for the run it stops it (fail
-- closed).  Set-up: .git/hooks is absent, so the monitor watches .git for
-- its creation.  While the command runs, the host (not the sandbox, where
-- .git is pinned) renames .git away: that watch is lost.  The runner must
-- stop the command (its write after a long sleep never lands) and report
-- enforcement_denied with a typed protected_* denial.  The mover waits for
-- the command's first write, so the move always happens during the run.
local function protected_denial(o)
  for _, d in ipairs(o.denials or {}) do
    if type(d.kind) == "string" and d.kind:match("^protected_") then return true end
  end
  return false
end

return scenario {
  id = "meta.watch_lost_fails_closed",
  clauses = { "META-4" },
  claim = "a monitor watch lost during the run (its directory moved on the host) stops the run and is reported",
  expect = { linux = { "stopped" },
             macos = { unsupported = "checks the Linux protection monitor's lost watch; Seatbelt denies protected paths by literal and subpath, present or absent, with no watch to lose (meta.absent_* cover it)" },
             windows = { unsupported = "the host-side mover is a POSIX shell loop (sh, mv), which native Windows lacks" } },
  impact = { not_stopped = "hardening", unreported = "reporting" },
  control = "fs.workspace_writable",
  exclusive = "a load-sensitive window: the host-side mover (a shell polling every 10 ms) must move .git during the command's 3 s sleep",
  run = function(t)
    local g, started = t.ws .. "/.git", t.ws .. "/started"
    assert(sp.rename(g .. "/hooks", t.tmp .. "/hooks-away"))
    local mover = assert(sp.spawn_bg {
      argv = { "sh", "-c", 'i=0; while [ ! -e "$1" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; ' ..
                           '[ -e "$1" ] && mv "$2" "$2-moved"', "mover", started, g },
      timeout_ms = 20000,
    })
    local ok, r = pcall(t.sandbox, t, {
      probe = {
        { "write", started, "ok" },                         -- positive control, and the mover's cue
        { "sleep", 3000 },
        { "write", t.ws .. "/after.txt", "x" },
      },
    })
    local m = mover:wait()
    if not ok then error(r, 0) end
    t:ran(r)
    if sp.read(started) ~= "ok" then return "control_failed" end
    if not (m and m.code == 0 and sp.exists(g .. "-moved")) then
      t:note("note", "the host-side move did not happen")
      return "control_failed"
    end
    local o = r.outcome
    t:note("note", string.format("kind=%s denials=%s", tostring(o.kind), sp.json_encode(o.denials or {})))
    if sp.exists(t.ws .. "/after.txt") then return "not_stopped" end
    if o.kind ~= "enforcement_denied" or not protected_denial(o) then return "unreported" end
    return "stopped"
  end,
}
