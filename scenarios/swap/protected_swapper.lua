-- (c) During the run: from the command's first instruction on, a swapper
-- exchanges .git/hooks with a symlink to a directory outside the policy in
-- a tight loop, while the command keeps planting a hook through both names
-- (one of them always holds the real hooks directory) and appending to a
-- workspace file (the positive control).  No hook may land in the real
-- hooks directory and nothing outside.  The runner may also stop the
-- command (a protected name renamed into place is a typed denial, META-3):
-- that is confinement too.  The swapper is started from a hold on the
-- command's own first nanosleep (lib.swapper_run), so the race covers the
-- run (setup is covered by swap.protected_held).
local lib = require "sandproof.lib"
local snapshot, diff = lib.snapshot, lib.snapshot_diff

-- at most 512 probe arguments in all (the harness's argv bound)
local ROUNDS = 20

return scenario {
  id = "swap.protected_swapper",
  clauses = { "SWAP-3", "META-1", "META-3" },
  claim = ".git/hooks exchanged with a symlink to outside continuously while the command writes never lets a hook be planted or a write land outside",
  expect = { linux = { "confined", "stopped" }, macos = { "confined", "stopped" },
             windows = { unsupported = "the swapper starts from a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: the swapper's exchanges during the command (its stated power) are counted in wall time, which other pairs would take from it",
  run = function(t)
    local hooks, link = t.ws .. "/.git/hooks", t.ws .. "/.git/hooks_link"
    assert(sp.symlink(t.outside, link))
    local hooks_before, out_before = snapshot(hooks), snapshot(t.outside)
    local ops = {}
    for _ = 1, ROUNDS do
      ops[#ops + 1] = { "append", t.ws .. "/ok", "x" }   -- positive control
      ops[#ops + 1] = { "write", hooks .. "/pre-commit", "#!/bin/sh\necho pwned\n" }
      ops[#ops + 1] = { "write", link .. "/pre-commit", "#!/bin/sh\necho pwned\n" }
      ops[#ops + 1] = { "sleep", 4 }
    end
    local r, exchanges, all, errs = lib.swapper_run(t, { a = hooks, b = link,
      profile = t.profiles.workspace_write(), ops = ops })
    local ok_ctl = 0
    for _, x in ipairs(r.probe) do
      if x.op == "append" and x.ok and all[x.i + 1][2] == t.ws .. "/ok" then ok_ctl = ok_ctl + 1 end
    end
    t:note("note", string.format("%d exchanges during the run; %d/%d control appends ok; refused writes %s; outcome %s",
      exchanges, ok_ctl, ROUNDS, errs, tostring(r.outcome.kind)))
    if snapshot(hooks) ~= hooks_before then
      t:note("note", "hooks changed: " .. diff(hooks_before, snapshot(hooks)))
      return "escaped"
    end
    if snapshot(t.outside) ~= out_before then
      t:note("note", "outside changed: " .. diff(out_before, snapshot(t.outside)))
      return "escaped"
    end
    -- stopped by the runner: a typed denial, and the command had started
    if r.outcome.kind == "enforcement_denied" and #(r.outcome.denials or {}) > 0 then
      t:note("note", "stopped: " .. sp.json_encode(r.outcome.denials))
      return "stopped"
    end
    if ok_ctl ~= ROUNDS or #(sp.read(t.ws .. "/ok") or "") ~= ROUNDS then return "control_failed" end
    return "confined"
  end,
}
