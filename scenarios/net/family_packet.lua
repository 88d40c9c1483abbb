-- NET-5: a packet socket (AF_PACKET) is refused with EPERM, whatever the network mode.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work.  When the runner reports
-- denials (enforcement.denials_reported) the refusal must be among them,
-- named "socket": EPERM alone could be the kernel's, not the sandbox's.
local lib = require "sandproof.lib"
local reported = lib.denial_reported

return scenario {
  id = "net.family_packet",
  clauses = { "NET-5" },
  claim = "a command cannot open a packet socket (AF_PACKET), even through a user namespace of its own",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  run = function(t)
    t:lab() -- no packet ever leaves the lab
    local ops = { "socket", "inet", "stream", "--", "socket", "netlink", "raw", "0", "--", "socket", "packet", "dgram" }
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
    if not reported(r.outcome, "socket") then return "unreported" end
    return "refused"
  end,
}
