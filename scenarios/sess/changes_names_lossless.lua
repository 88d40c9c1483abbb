-- OUT-8: the change report names files losslessly.  A command creates
-- three names that a lossy report would merge: `bad` + byte 0xFF, `bad` +
-- byte 0xFE (neither is UTF-8) and `bad` + U+FFFD (the replacement
-- character itself, valid UTF-8).  Each must be listed once as created,
-- with exactly its bytes (the adapter decodes a path whose path_encoding is
-- base64), so the three entries stay distinct.  The names are checked on
-- the host first: a file system that refuses names that are not UTF-8
-- (APFS) makes the claim moot, and says so.
local NAMES = { "bad\255", "bad\254", "bad\239\191\189" }

return scenario {
  id = "sess.changes_names_lossless",
  clauses = { "OUT-8" },
  claim = "a run's change report lists names that are not UTF-8 with their exact bytes, distinct from a real U+FFFD",
  expect = { linux = { "reported" },
             macos = { "reported", "fs_refuses_names" },
             windows = { unsupported = "the change walk joins a root and its entries with '/', not Windows' separator (not ported yet)" } },
  impact = { merged = "reporting", missed = "reporting", outside_listed = "reporting",
             no_changes = "reporting", ["run_failed:*"] = "reporting" },
  run = function(t)
    -- the request is JSON (UTF-8 only): the shell makes the bytes
    local r = t:sandbox { command = { "sh", "-c",
      [[for n in '\377' '\376' '\357\277\275'; do : > "$PWD/$(printf "bad$n")"; done]] } }
    local o = r.outcome
    if o.kind ~= "success" then return "run_failed:" .. tostring(o.kind) end
    local on_host = {}
    for _, n in ipairs(sp.listdir(t.ws) or {}) do on_host[n] = true end
    for _, n in ipairs(NAMES) do
      if not on_host[n] then
        t:note("note", "the file system did not keep every name: " .. sp.json_encode(sp.listdir(t.ws) or {}))
        return "fs_refuses_names"
      end
    end
    local ch = o.changes
    if type(ch) ~= "table" or type(ch.entries) ~= "table" then return "no_changes" end
    t:note("note", "changes: " .. sp.json_encode(ch))
    local count = {}
    for _, e in ipairs(ch.entries) do
      if type(e.path) ~= "string" or e.path:sub(1, #t.ws + 1) ~= t.ws .. "/" then return "outside_listed" end
      local k = e.op .. " " .. e.path
      count[k] = (count[k] or 0) + 1
    end
    for _, n in ipairs(NAMES) do
      local c = count["created " .. t.ws .. "/" .. n]
      if not c then return "missed" end
      if c > 1 then return "merged" end
    end
    if ch.created ~= #NAMES then return "merged" end
    return "reported"
  end,
}
