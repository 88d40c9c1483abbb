-- (c) During the run: from the command's first instruction on, a swapper
-- exchanges the read-only subpath with a symlink to a directory outside the
-- policy in a tight loop, while the command keeps writing through both
-- names (one of them always holds the real read-only directory) and
-- appending to a workspace file (the positive control).  The read-only
-- content must never change and nothing may land outside.  The swapper is
-- started from a hold on the command's own first nanosleep
-- (lib.swapper_run), so the race covers the run (setup is covered by
-- swap.ro_subpath_held).
local lib = require "sandproof.lib"
local array, snapshot, diff = lib.array, lib.snapshot, lib.snapshot_diff

-- at most 512 probe arguments in all (the harness's argv bound)
local ROUNDS = 20

return scenario {
  id = "swap.ro_subpath_swapper",
  clauses = { "SWAP-3", "FS-2" },
  claim = "a read-only subpath exchanged with a symlink to outside continuously while the command writes never becomes writable and never redirects a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { unsupported = "the swapper starts from a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: the swapper's exchanges during the command (its stated power) are counted in wall time, which other pairs would take from it",
  run = function(t)
    local ro, link = t.ws .. "/ro", t.ws .. "/ro_link"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/keep", "keep\n"))
    assert(sp.symlink(t.outside, link))
    local ro_before, out_before = snapshot(ro), snapshot(t.outside)
    local profile = t.profiles.workspace_write()
    profile.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { ro } } }
    local ops = {}
    for _ = 1, ROUNDS do
      ops[#ops + 1] = { "append", t.ws .. "/ok", "x" }   -- positive control
      ops[#ops + 1] = { "append", ro .. "/keep", "pwned\n" }
      ops[#ops + 1] = { "write", ro .. "/f", "x" }
      ops[#ops + 1] = { "write", link .. "/f", "x" }
      ops[#ops + 1] = { "append", link .. "/keep", "pwned\n" }
      ops[#ops + 1] = { "sleep", 4 }
    end
    local r, exchanges, all, errs = lib.swapper_run(t, { a = ro, b = link, profile = profile, ops = ops })
    local ok_ctl = 0
    for _, x in ipairs(r.probe) do
      if x.op == "append" and x.ok and all[x.i + 1][2] == t.ws .. "/ok" then ok_ctl = ok_ctl + 1 end
    end
    t:note("note", string.format("%d exchanges during the run; %d/%d control appends ok; refused writes %s; outcome %s",
      exchanges, ok_ctl, ROUNDS, errs, tostring(r.outcome.kind)))
    if snapshot(ro) ~= ro_before then
      t:note("note", "read-only subpath changed: " .. diff(ro_before, snapshot(ro)))
      return "escaped"
    end
    if snapshot(t.outside) ~= out_before then
      t:note("note", "outside changed: " .. diff(out_before, snapshot(t.outside)))
      return "escaped"
    end
    if ok_ctl ~= ROUNDS or #(sp.read(t.ws .. "/ok") or "") ~= ROUNDS then return "control_failed" end
    return "confined"
  end,
}
