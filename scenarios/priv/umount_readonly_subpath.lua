-- PRIV-2 / FS-2: a read-only subpath of the workspace cannot be uncovered
-- from inside by unmounting it (umount2 MNT_DETACH would expose the
-- writable workspace mount below).  Host-side oracle: a file written
-- beneath it after the attempt must not exist on the host.  Positive
-- control: the sibling write in the writable workspace lands.
return scenario {
  id = "priv.umount_readonly_subpath",
  clauses = { "PRIV-2", "FS-2" },
  claim = "the command cannot unmount a read-only subpath and write beneath it",
  expect = { linux = { "held" }, macos = { "held" }, windows = { "held" } },
  run = function(t)
    local ro = t.ws .. "/ro"
    assert(sp.mkdir(ro))
    local profile = t.profiles.workspace_write()
    profile.filesystem.write_roots[1].read_only_subpaths = { ro }
    local r = t:ran(t:sandbox { profile = profile, probe = {
      { "write", t.ws .. "/control", "x" },                      -- positive control
      { "umount", ro },
      { "write", ro .. "/planted", "x" },
    } })
    local m, w = r.probe[2], r.probe[3]
    if not (m and w) then return "error" end
    t:note("note", string.format("umount ok=%s errno=%s; write beneath ok=%s errno=%s",
      tostring(m.ok), tostring(m.errno), tostring(w.ok), tostring(w.errno)))
    if sp.exists(ro .. "/planted") then return "written" end
    if sp.read(t.ws .. "/control") ~= "x" then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "held"
  end,
}
