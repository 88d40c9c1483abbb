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
  expect = { linux = { "works" },
             macos = { unsupported = "the node set checked is Linux's (/dev/full, /dev/shm, devpts)" },
             windows = { "not_applicable" } },
  impact = { broken = "fidelity" },
  control = "fs.workspace_writable",
  unconfined_passes = true,
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local r = t:ran(t:sandbox {
      probe = {
        { "write", "/dev/null", "discarded", as = "null" },
        { "read", "/dev/zero", as = "zero" },
        { "read", "/dev/urandom", as = "urandom" },
        { "write", "/dev/full", "x", as = "full" },
        { "stat", "/dev/tty", as = "tty" },
        { "stat", "/dev/pts", as = "pts" },
        { "stat", "/dev/shm", as = "shm" },
        { "stat", "/dev/stdout", as = "stdout" },
        { "write", t.ws .. "/control", "ok" },
      },
    })
    local bad = {}
    local function want(name, cond)
      local q = r.op[name]
      if not (q and cond(q)) then
        bad[#bad + 1] = name .. "(" .. (q and (q.ok and "ok" or tostring(q.errno)) or "missing") .. ")"
      end
    end
    want("null", function(q) return q.ok end)
    want("zero", function(q) return q.ok and q.bytes == 4096 and q.truncated end)
    want("urandom", function(q) return q.ok and q.bytes == 4096 end)
    want("full", function(q) return not q.ok and q.errno == "ENOSPC" end)
    want("tty", function(q) return q.ok and q.type == "chr" end)
    want("pts", function(q) return q.ok and q.type == "dir" end)
    want("shm", function(q) return q.ok and q.type == "dir" end)
    want("stdout", function(q) return q.ok and q.type == "symlink" end)
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    t:note("note", #bad == 0 and "every node behaved" or "not working: " .. table.concat(bad, " "))
    return #bad == 0 and "works" or "broken"
  end,
}
