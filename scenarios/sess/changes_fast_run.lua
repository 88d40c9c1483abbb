-- OUT-8: a one-shot run's outcome lists what the command changed under
-- its write roots, from a baseline taken before it started: a command of a
-- millisecond creates one file and removes another, and both are reported;
-- a symlink in the workspace to the outside directory is not followed (the
-- files there, which the harness changed before the run, are not listed).
return scenario {
  id = "sess.changes_fast_run",
  clauses = { "OUT-8" },
  claim = "a run reports the paths a millisecond command created and deleted under its write roots, and nothing outside them",
  expect = { linux = { "reported" },
             macos = { "reported" },
             windows = { unsupported = "the change walk joins a root and its entries with '/', not Windows' separator (not ported yet)" } },
  impact = { missed = "reporting", outside_listed = "reporting", no_changes = "reporting",
             ["run_failed:*"] = "reporting" },
  run = function(t)
    sp.write(t.ws .. "/old", "to be deleted\n")
    sp.symlink(t.outside, t.ws .. "/link")
    local r = t:sandbox { command = { "sh", "-c", ': > "$PWD/made"; rm "$PWD/old"' } }
    local o = r.outcome
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    local ch = o.changes
    if type(ch) ~= "table" or type(ch.entries) ~= "table" then return "no_changes" end
    local seen = {}
    for _, e in ipairs(ch.entries) do
      seen[e.op .. " " .. e.path] = true
      if e.path:sub(1, #t.ws + 1) ~= t.ws .. "/" or e.path:find(t.ws .. "/link/", 1, true) then
        return "outside_listed"
      end
    end
    t:note("note", "changes: " .. sp.json_encode(ch))
    if not (seen["created " .. t.ws .. "/made"] and seen["deleted " .. t.ws .. "/old"]) then
      return "missed"
    end
    return "reported"
  end,
}
