-- /tmp is never the host's: the host's files under /tmp (here the
-- scenario's `outside/victim`, next to the workspace) are not visible in
-- the sandbox, with or without allow_temp, while the workspace (a write
-- root beneath /tmp) is (positive control).
return scenario {
  id = "fs.tmp_hides_host",
  clauses = { "FS-4" },
  claim = "the host's /tmp content outside the write roots is not visible inside the sandbox",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  impact = { visible = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local victim = t.outside .. "/victim"
    local seen = {}
    for _, allow in ipairs { true, false } do
      local p = t.profiles.workspace_write()
      p.filesystem.allow_temp = allow
      local r = t:ran(t:sandbox {
        profile = p,
        probe = { { "read", t.ws .. "/README", as = "control" }, { "read", victim, as = "victim" },
                  { "stat", t.outside, as = "outside" } },
      })
      local ctl, rd, st = r.op.control, r.op.victim, r.op.outside
      if not (ctl and ctl.ok and ctl.data == "workspace\n") then return "control_failed" end
      t:note("note", string.format("allow_temp=%s: read victim %s, stat outside %s", tostring(allow),
        rd and (rd.ok and "ok" or tostring(rd.errno)) or "missing",
        st and (st.ok and "ok" or tostring(st.errno)) or "missing"))
      if (rd and rd.ok) or (st and st.ok) then seen[#seen + 1] = tostring(allow) end
    end
    if #seen > 0 then return "visible" end
    return "hidden"
  end,
}
