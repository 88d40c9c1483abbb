-- NET-5: a netlink socket of another protocol than NETLINK_ROUTE (NETLINK_AUDIT, 9) is refused with EPERM.
-- The positive control in the same probe: socket(AF_INET, SOCK_STREAM) and
-- socket(AF_NETLINK, NETLINK_ROUTE) still work.  When the runner reports
-- denials (enforcement.denials_reported) the refusal must be among them,
-- named "socket": EPERM alone could be the kernel's, not the sandbox's.
local function reported(o, name)
  if not (type(o.enforcement) == "table" and o.enforcement.denials_reported == true) then
    return true
  end
  for _, d in ipairs(type(o.denials) == "table" and o.denials or {}) do
    if d.kind == "syscall" and d.name == name then return true end
  end
  return false
end

return scenario {
  id = "net.family_netlink_audit",
  clauses = { "NET-5" },
  claim = "a command cannot open a netlink socket other than NETLINK_ROUTE (NETLINK_AUDIT)",
  expect = { linux = { "refused" }, macos = { "refused" }, windows = { "refused" } },
  run = function(t)
    t:lab() -- no packet ever leaves the lab
    local ops = { "socket", "inet", "stream", "--", "socket", "netlink", "raw", "0", "--", "socket", "netlink", "raw", "9" }
    local argv = { t.paths.probe }
    for _, a in ipairs(ops) do argv[#argv + 1] = a end
    -- under network=allow: the refusal is not the network namespace's doing
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
