-- macOS: a launchd (Mach bootstrap) service is a door out of the sandbox:
-- the pasteboard server reads and writes the user's clipboard, LaunchServices
-- starts applications outside the sandbox, the Apple Events server drives
-- other applications.  Seatbelt filters `mach-lookup` by service name, so a
-- profile must allow a short list, never a wildcard.  The probe looks each
-- of these services up from inside the sandbox (mach_lookup:
-- bootstrap_look_up); each must fail (which kern_return_t a denied lookup
-- gets is noted, not judged: the host's own lookup proved it exists).  Positive control: the same
-- lookups made on the host, outside any sandbox, succeed (a service not
-- registered here is left out, noted; none left is a skip), and the
-- workspace write in the same run lands.  Fails against: a profile with
-- (allow mach-lookup) or one listing these services; the unconfined
-- control.  Off macOS the probe answers unsupported_op: unsupported.
local sp = require "sp"

local SERVICES = {
  "com.apple.pasteboard.1",                 -- the clipboard
  "com.apple.coreservices.launchservicesd", -- `open`: launches applications
  "com.apple.coreservices.appleevents",     -- Apple Events to other applications
}

local function lookup_ops(names)
  local ops = {}
  for i, s in ipairs(names) do ops[#ops + 1] = { "mach_lookup", s, as = "svc" .. i } end
  return ops
end

return scenario {
  id = "priv.seatbelt_mach_lookup",
  clauses = { "PRIV-2" },
  claim = "the command cannot look up launchd services outside the profile's allowlist (pasteboard, LaunchServices, Apple Events)",
  expect = { linux = { unsupported = "macos only: Mach bootstrap services are macOS's" },
             macos = { "refused" },
             windows = { unsupported = "macos only: Mach bootstrap services are macOS's" } },
  impact = { ["looked_up:*"] = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    -- the host's own lookups: which services exist here at all
    local argv = { t.paths.probe }
    for i, s in ipairs(SERVICES) do
      if i > 1 then argv[#argv + 1] = "--" end
      argv[#argv + 1], argv[#argv + 2] = "mach_lookup", s
    end
    local host, present = sp.spawn { argv = argv, timeout_ms = 10000 }, {}
    for line in (host and host.stdout or ""):gmatch("[^\n]+") do
      local j = line:sub(1, 1) == "{" and sp.json_decode(line)
      if j and j.op == "mach_lookup" then
        if j.unsupported then
          t:unsupported("unsupported on " .. tostring(t.os) .. ": the probe's mach_lookup is macOS only")
        end
        if j.ok then present[#present + 1] = SERVICES[j.i + 1] end
      end
    end
    if #present == 0 then t:skip("none of the services is registered for this user (no GUI session?)") end
    t:note("note", "registered on the host: " .. table.concat(present, " "))
    local ops = lookup_ops(present)
    table.insert(ops, 1, { "write", t.ws .. "/ok", "ok", as = "control" })
    local r = t:ran(t:sandbox { probe = ops })
    local got, errs = {}, {}
    for i, s in ipairs(present) do
      local q = r.op["svc" .. i]
      if not q then t:error("the probe stopped before looking up " .. s) end
      errs[#errs + 1] = s .. "=" .. (q.ok and "ok" or tostring(q.errno))
      if q.ok then got[#got + 1] = s end
    end
    t:note("note", "in the sandbox: " .. table.concat(errs, " "))
    if #got > 0 then return "looked_up:" .. table.concat(got, ",") end
    if not (r.op.control and r.op.control.ok and sp.read(t.ws .. "/ok") == "ok") then
      t:note("note", "positive control failed: the workspace write did not land")
      return "control_failed"
    end
    return "refused"
  end,
}
