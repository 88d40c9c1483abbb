-- OUT-8: a directory whose mode the command changed is reported modified.
-- The command makes `d` (0755 before the run) 0700 and creates a file in
-- `e`; the report must list `d` as modified and `e/f` as created, and not
-- `e` (a directory whose entries changed is not itself modified: its
-- entries are reported).  The mode is checked on the host.
return scenario {
  id = "sess.changes_dir_mode",
  clauses = { "OUT-8" },
  claim = "a run's change report lists a directory whose mode the command changed as modified, and a directory that only gained an entry as not",
  expect = { linux = { "reported" },
             macos = { "reported" },
             windows = { unsupported = "the change walk joins a root and its entries with '/', not Windows' separator (not ported yet)" } },
  impact = { missed = "reporting", overreported = "reporting", outside_listed = "reporting",
             no_changes = "reporting", ["run_failed:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    assert(sp.mkdir(t.ws .. "/d"))
    assert(sp.mkdir(t.ws .. "/e"))
    assert(sp.chmod(t.ws .. "/d", tonumber("755", 8)))
    local r = t:sandbox { command = { "sh", "-c", 'chmod 700 "$PWD/d" && : > "$PWD/e/f"' } }
    local o = r.outcome
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    if (sp.lstat(t.ws .. "/d") or {}).mode ~= tonumber("700", 8) then return "control_failed" end
    local ch = o.changes
    if type(ch) ~= "table" or type(ch.entries) ~= "table" then return "no_changes" end
    t:note("note", "changes: " .. sp.json_encode(ch))
    local seen = {}
    for _, e in ipairs(ch.entries) do
      if e.path:sub(1, #t.ws + 1) ~= t.ws .. "/" then return "outside_listed" end
      seen[e.op .. " " .. e.path] = true
    end
    if not (seen["modified " .. t.ws .. "/d"] and seen["created " .. t.ws .. "/e/f"]) then return "missed" end
    if seen["modified " .. t.ws .. "/e"] or ch.modified ~= 1 or ch.created ~= 1 or ch.deleted ~= 0 then
      return "overreported"
    end
    return "reported"
  end,
}
