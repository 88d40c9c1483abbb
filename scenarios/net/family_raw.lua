-- NET-5: a raw IP socket (AF_INET, SOCK_RAW) is refused with EPERM, whatever the network mode.
-- AF_INET itself is a permitted family, so the refusal is the kernel's
-- capability check (CAP_NET_RAW, gone by PRIV-1), not a seccomp rule: no
-- syscall denial is expected in the outcome.  To keep that honest the
-- attack tries to regain CAP_NET_RAW through a namespace of its own first.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work.

return scenario {
  id = "net.family_raw",
  clauses = { "NET-5", "PRIV-1" },
  claim = "a command cannot open a raw IP socket (AF_INET, SOCK_RAW), even through a user namespace of its own",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  run = function(t)
    t:lab() -- no packet ever leaves the lab
    local ops = { "socket", "inet", "stream", "--", "socket", "netlink", "raw", "0", "--", "socket", "raw" }
    -- The attack first tries to gain the capability the family needs in a
    -- user and network namespace of its own (unshare -rn); only when that
    -- fails does it ask from where it stands.  Unconfined, even an
    -- unprivileged user gets the socket that way.
    local q = {}
    for _, a in ipairs(ops) do q[#q + 1] = "'" .. a .. "'" end
    local line = table.concat(q, " ")
    local argv = { "sh", "-c", "unshare -rn \"$0\" " .. line .. " 2>/dev/null || exec \"$0\" " .. line,
                   t.paths.probe }
    local r = t:ran(t:sandbox { network = "allow", command = argv })
    local inet, route, s = r.probe[1], r.probe[2], r.probe[3]
    if not (inet and route and s) then return "error" end
    t:note("note", string.format("inet ok=%s; netlink route ok=%s; target ok=%s errno=%s",
      tostring(inet.ok), tostring(route.ok), tostring(s.ok), tostring(s.errno)))
    if s.ok then return "opened" end
    if not (inet.ok and route.ok) then
      t:note("note", "positive control failed: permitted socket families were refused too")
      return "control_failed"
    end
    if s.errno ~= "EPERM" then return "errno_" .. tostring(s.errno) end
    return "refused"
  end,
}
