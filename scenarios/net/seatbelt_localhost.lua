-- macOS: Seatbelt's `localhost` network filter also matches the host's own
-- interface addresses, and a socket bound to a local address matches it by
-- its local endpoint; a profile with a loopback allowance (the bug Zero
-- shipped and reverted) lets a command under network=deny reach any
-- listener on the host.  Under deny the command connects, from an unbound
-- socket and from one bound to the same address, to listeners on the
-- host's loopback (127.0.0.1, ::1) and on its first interface address.
-- Host-side oracle: each listener counts the peers that reached it (the
-- probe's listen_count, run by the harness outside the sandbox; on macOS
-- there is no lab, so they listen on the host's own addresses and no
-- packet leaves the machine).  Positive controls: the sandbox's workspace
-- write in the same run, and after it one connect of the host's own to
-- each listener (a listener that cannot count it is a harness error).
-- Elsewhere the listeners are a lab's (a network namespace): never the
-- host's network.  Fails against: a profile with (allow network* (local
-- ip "localhost:*")) or a remote-localhost allowance; the unconfined
-- control.
local sp = require "sp"
local lib = require "sandproof.lib"

-- A listener on addr: { port, count(), connect() } (count: the peers it saw,
-- the host's own control connect included), or nil when addr cannot be
-- bound here.  In a lab elsewhere, on the host's own addresses on macOS.
local function listener(t, lab, addr)
  if not lab then return lib.host_listener(t, addr) end
  local port, id = lab:listen("tcp", addr)
  if not port then return nil end
  return { port = port, count = function() return lab:hits(id, 1, 500) end, connect = function()
    t:spawn { argv = { t.paths.probe, "connect", "tcp", addr, tostring(port) }, timeout_ms = 10000 }
  end }
end

-- The host's first interface address (IPv4), from the probe's if_addrs run
-- on the host; nil when none is up.
local function interface_addr(t)
  local r = sp.spawn { argv = { t.paths.probe, "if_addrs" }, timeout_ms = 10000 } or {}
  for line in (r.stdout or ""):gmatch("[^\n]+") do
    local j = line:sub(1, 1) == "{" and sp.json_decode(line)
    if j and j.op == "if_addrs" and j.ok then return j.inet:match("^[^,]+") end
  end
  return nil
end

return scenario {
  id = "net.seatbelt_localhost",
  clauses = { "NET-1" },
  claim = "under network=deny a command reaches no listener on the host's loopback or interface address, from an unbound or a bound socket",
  expect = { linux = { unsupported = "macos only: Seatbelt's localhost filter; Linux gives the sandbox its own network namespace (net.deny.*)" },
             macos = { "denied" },
             windows = { unsupported = "macos only: Seatbelt's localhost filter" } },
  impact = { ["reached:*"] = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local lab = t.os ~= "macos" and t:lab() or nil -- never the host's network
    local targets = { { "127.0.0.1", "lo4" }, { "::1", "lo6" } }
    local ifaddr = lab and "192.0.2.1" or interface_addr(t)
    if ifaddr then targets[#targets + 1] = { ifaddr, "if4" } else t:note("note", "no interface address is up: loopback only") end
    local ops, live = { { "write", t.ws .. "/ok", "ok", as = "control" } }, {}
    for _, tg in ipairs(targets) do
      local l = listener(t, lab, tg[1])
      if l then
        live[#live + 1] = { addr = tg[1], name = tg[2], l = l }
        ops[#ops + 1] = { "connect", "tcp", tg[1], l.port, as = tg[2] .. "_unbound" }
        ops[#ops + 1] = { "connect_from", "tcp", tg[1], tg[1], l.port, as = tg[2] .. "_bound" }
      else
        t:note("note", "no listener on " .. tg[1] .. " (no such address here): not tried")
      end
    end
    if #live == 0 then t:error("no host listener could be started") end
    local r = t:ran(t:sandbox { network = "deny", probe = ops })
    -- the host's own connect to each listener: it must be counted
    -- (on the host itself, never in a lab a runner may have made for itself)
    for _, v in ipairs(live) do v.l.connect() end
    local reached, seen = {}, {}
    for _, v in ipairs(live) do
      local n = v.l.count()
      seen[#seen + 1] = string.format("%s(%s)=%d", v.name, v.addr, n)
      if n < 1 then t:error("the host's own connect to its listener on " .. v.addr .. " was not counted") end
      if n > 1 then reached[#reached + 1] = v.name end
    end
    local errs = {}
    for _, p in ipairs(r.probe) do errs[#errs + 1] = p.op .. "=" .. (p.ok and "ok" or tostring(p.errno)) end
    t:note("note", "peers counted (the host's control included): " .. table.concat(seen, " ") ..
      "; in the sandbox: " .. table.concat(errs, " "))
    if #reached > 0 then return "reached:" .. table.concat(reached, ",") end
    if not (r.op.control and r.op.control.ok and sp.read(t.ws .. "/ok") == "ok") then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "denied"
  end,
}
