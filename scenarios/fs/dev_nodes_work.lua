-- The minimal /dev still works: /dev/null takes writes, /dev/zero and
-- /dev/urandom read, /dev/full answers ENOSPC, /dev/tty is a character
-- device, /dev/pts and /dev/shm are directories and /dev/stdout is a link.
-- A capability claim: the unconfined control has all of this too.
-- (Linux: this node set is the Linux one; macOS has no /dev/full or
-- /dev/shm and Windows no /dev.)
return scenario {
  id = "fs.dev_nodes_work",
  clauses = { "FS-5" },
  claim = "the minimal /dev nodes work as on the host (null, zero, full, urandom, tty, pts, shm, std links)",
  expect = { linux = { "works" }, macos = { "not_applicable" }, windows = { "not_applicable" } },
  unconfined_passes = true,
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local r = t:ran(t:sandbox {
      probe = {
        { "write", "/dev/null", "discarded" },
        { "read", "/dev/zero" },
        { "read", "/dev/urandom" },
        { "write", "/dev/full", "x" },
        { "stat", "/dev/tty" },
        { "stat", "/dev/pts" },
        { "stat", "/dev/shm" },
        { "stat", "/dev/stdout" },
        { "write", t.ws .. "/control", "ok" },
      },
    })
    local p = r.probe
    local bad = {}
    local function want(i, cond, what)
      if not (p[i] and cond(p[i])) then
        bad[#bad + 1] = what .. "(" .. (p[i] and (p[i].ok and "ok" or tostring(p[i].errno)) or "missing") .. ")"
      end
    end
    want(1, function(q) return q.ok end, "null")
    want(2, function(q) return q.ok and q.bytes == 4096 and q.truncated end, "zero")
    want(3, function(q) return q.ok and q.bytes == 4096 end, "urandom")
    want(4, function(q) return not q.ok and q.errno == "ENOSPC" end, "full")
    want(5, function(q) return q.ok and q.type == "chr" end, "tty")
    want(6, function(q) return q.ok and q.type == "dir" end, "pts")
    want(7, function(q) return q.ok and q.type == "dir" end, "shm")
    want(8, function(q) return q.ok and q.type == "symlink" end, "stdout")
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    t:note("note", #bad == 0 and "every node behaved" or "not working: " .. table.concat(bad, " "))
    return #bad == 0 and "works" or "broken"
  end,
}
