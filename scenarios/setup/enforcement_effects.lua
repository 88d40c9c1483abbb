-- Every enforcement fact the outcome reports (OUT-4: what was really
-- applied) is checked by its effect from inside the sandbox, never taken
-- on the runner's word (lib.enforcement_problem):
--   user_ns, mount_ns, pid_ns, net_ns, ipc_ns  /proc/self/ns/* differs from
--       the namespace the runner was started in (a probe started the same
--       way, outside any sandbox);
--   seccomp       /proc/self/status: Seccomp 2, more filters than outside;
--   no_new_privs  NoNewPrivs 1;   caps_dropped  every Cap* set empty;
--   landlock_abi > 0  a write to /proc/self/comm, which the read-write
--       /proc mount allows, fails with EACCES; with ABI >= 6 signal 0 to
--       the sandbox's pid 1 fails too (signal scope);
--   denials_reported  io_uring_setup is refused and reported as a typed
--       syscall denial.
-- A fact reported false (net_ns under network=allow, landlock_abi 0)
-- claims nothing and is not checked.  Two runs: network deny, and allow
-- (in a lab).  The workspace write is the positive control of each.
local lib = require "sandproof.lib"

return scenario {
  id = "setup.enforcement_effects",
  clauses = { "OUT-4", "PRIV-1", "PRIV-3", "PROC-9", "FS-6" },
  claim = "every enforcement fact the outcome reports is true by its effect inside the sandbox",
  expect = { linux = { "verified" },
             macos = { unsupported = "the effects checked are Linux's (namespaces, Landlock, mount options, io_uring); Seatbelt's profile is checked by the sbpl model on every OS" },
             windows = { "verified" } },
  impact = { unreported = "reporting", ["unverified *"] = "reporting" },
  control = "fs.workspace_writable",
  run = function(t)
    local function one(network)
      -- outside: where the runner starts (a network=allow run is in a lab)
      if network == "allow" and not t._ctx.lab then t:lab() end
      local outside = lib.outside_effects(t)
      local ops = { { "write", t.ws .. "/control-" .. network, "ok" } }   -- positive control
      for _, op in ipairs(lib.effect_ops()) do ops[#ops + 1] = op end
      local r = t:ran(t:sandbox { network = network, probe = ops })
      if sp.read(t.ws .. "/control-" .. network) ~= "ok" then return "control_failed" end
      if type(r.outcome.enforcement) ~= "table" then return "unreported" end
      local bad, lines = lib.enforcement_problem(r.outcome, lib.effects(r), outside)
      t:note("note", "network=" .. network .. ":\n" .. table.concat(lines, "\n"))
      return bad and ("unverified " .. bad)
    end
    return one("deny") or one("allow") or "verified"
  end,
}
