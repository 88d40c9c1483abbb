-- The workspace is writable: a command creates a file, overwrites it,
-- makes a directory and a file in it, and reads the first back; each lands
-- on the host as written (host oracle).  A capability claim (the unconfined
-- control passes too), and the ability most positive controls use: a
-- scenario whose workspace-write control fails is inconclusive and names
-- this one (docs/SCENARIOS.md, control).
return scenario {
  id = "fs.workspace_writable",
  clauses = { "FS-1" },
  claim = "a command can create, overwrite and read back files in the workspace, and each write lands on the host",
  expect = { linux = { "writable" }, macos = { "writable" }, windows = { "writable" } },
  impact = { not_landed = "fidelity", read_differs = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local f, d = t.ws .. "/made", t.ws .. "/dir"
    local r = t:ran(t:sandbox { probe = {
      { "write", f, "first" },
      { "write", f, "second" },
      { "mkdir", d },
      { "write", d .. "/inner", "inner" },
      { "read", f, as = "back" },
    } })
    local back = r.op.back
    t:note("note", string.format("read back ok=%s errno=%s", tostring(back and back.ok),
      tostring(back and back.errno)))
    if sp.read(f) ~= "second" or sp.read(d .. "/inner") ~= "inner" then return "not_landed" end
    if not (back and back.ok and back.data == "second") then return "read_differs" end
    return "writable"
  end,
}
