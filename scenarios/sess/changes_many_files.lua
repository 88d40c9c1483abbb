-- OUT-8 at scale: a command creates 100 000 files under its write root
-- (beneath the walk's bound of 131 072 entries, so both walks are complete).
-- The outcome must count every creation, list at most 256 of them with the
-- rest counted in `dropped`, list nothing outside the root, leave
-- `truncated` false, and the runner's peak memory must stay within PROC-7's
-- R0 (16 MiB) plus the walk's 16 MiB.  Checked on the host: the files exist
-- (the count in the workspace), and the kernel's peak RSS of the run.
local N = 100000
local WALK_BOUND_KIB = (16 + 16) * 1024

return scenario {
  id = "sess.changes_many_files",
  clauses = { "OUT-8", "PROC-7" },
  claim = "a run that creates 100 000 files reports all of them counted, at most 256 listed, within the walk's memory bound",
  expect = { linux = { "reported" },
             macos = { "reported" },
             windows = { unsupported = "the change walk joins a root and its entries with '/', not Windows' separator (not ported yet)" } },
  impact = { miscounted = "reporting", overlisted = "reporting", outside_listed = "reporting",
             truncated = "reporting", no_changes = "reporting", unbounded = "reporting",
             ["not_created:*"] = "reporting", ["run_failed:*"] = "reporting" },
  run = function(t)
    local py = "import os\nfor i in range(" .. N .. "):\n  os.close(os.open('f%d' % i, os.O_CREAT | os.O_WRONLY, 0o644))\n"
    local r = t:sandbox { command = { "python3", "-c", py }, timeout_ms = 120000 }
    local o = r.outcome
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    local made = 0
    for _, name in ipairs(sp.listdir(t.ws)) do
      if name:match("^f%d+$") then made = made + 1 end
    end
    if made ~= N then return "not_created:" .. made end
    local ch = o.changes
    if type(ch) ~= "table" or type(ch.entries) ~= "table" then return "no_changes" end
    t:note("note", string.format("changes: created %s, listed %d, dropped %s, truncated %s; peak RSS %s KiB",
      tostring(ch.created), #ch.entries, tostring(ch.dropped), tostring(ch.truncated),
      tostring(r.maxrss_kib)))
    for _, e in ipairs(ch.entries) do
      if e.path:sub(1, #t.ws + 1) ~= t.ws .. "/" then return "outside_listed" end
    end
    if ch.truncated then return "truncated" end
    if #ch.entries > 256 then return "overlisted" end
    if ch.created ~= N or ch.modified ~= 0 or ch.deleted ~= 0
       or ch.dropped ~= N - #ch.entries then
      return "miscounted"
    end
    if not r.maxrss_kib or r.maxrss_kib > WALK_BOUND_KIB then return "unbounded" end
    return "reported"
  end,
}
