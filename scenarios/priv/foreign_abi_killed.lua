-- PRIV-2: a system call made through a foreign ABI kills the process, so
-- no rule of the filter can be dodged by renumbering.  On x86_64 the
-- probe calls getpid through x32 (the native instruction, number |
-- 0x40000000: every x86_64 kernel hands that number to seccomp, whether or
-- not it has the x32 ABI), and through ia32 (int 0x80) when this host has
-- it (checked by running the probe unconfined first: without the ia32 gate
-- int 0x80 is a general protection fault, SIGSEGV).  Each call must end
-- the probe with SIGSYS: its result line never comes, the workspace write
-- after it never lands (host-side), and the outcome reports the signal.
-- Positive control: the workspace write before it lands.  Unconfined (and
-- under a filter that lets other ABIs through) x32 answers ENOSYS or the
-- pid and the probe goes on.
return scenario {
  id = "priv.foreign_abi_killed",
  clauses = { "PRIV-2" },
  claim = "a system call through a foreign ABI (x32, ia32) kills the sandboxed process",
  expect = { linux = { "killed" },
             macos = { unsupported = "foreign syscall ABIs (x32, int 0x80) are Linux x86_64's" },
             windows = { "killed" } },
  impact = { ["answered:*"] = "hardening", ["died_otherwise:*"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    if sp.uname().machine ~= "x86_64" then
      t:skip("foreign ABIs are probed on x86_64 only (here " .. tostring(sp.uname().machine) .. ")")
    end
    local abis = { "x32" }
    local h = sp.spawn { argv = { t.paths.probe, "foreign_abi", "ia32" }, timeout_ms = 5000 }
    if h and h.code == 0 and (h.stdout or ""):find('"ok":true', 1, true) then
      abis[#abis + 1] = "ia32"
    else
      t:note("note", string.format("ia32 not available on this host (unconfined int 0x80: exit %s signal %s)",
        tostring(h and h.code), tostring(h and h.signal)))
    end
    for _, abi in ipairs(abis) do
      local before, after = t.ws .. "/before-" .. abi, t.ws .. "/after-" .. abi
      local r = t:ran(t:sandbox { probe = {
        { "write", before, "x" },                                 -- positive control
        { "foreign_abi", abi, as = "call" },
        { "write", after, "x" },
      } })
      local o = r.outcome
      local sig = type(o.exit) == "table" and o.exit.signal or nil
      local call = r.op.call
      t:note("note", string.format("%s: kind %s signal %s; call %s", abi, tostring(o.kind), tostring(sig),
        call and sp.json_encode(call) or "(no result: the probe ended)"))
      if sp.read(before) ~= "x" then return "control_failed" end
      if call or sp.exists(after) then return "answered:" .. abi end
      if sig ~= 31 then return "died_otherwise:" .. abi .. ":" .. tostring(sig) end
    end
    return "killed"
  end,
}
