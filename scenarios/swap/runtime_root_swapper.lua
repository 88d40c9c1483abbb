-- (c) During the run: from the command's first instruction on, a swapper
-- exchanges the workspace's runtime root with a symlink to a directory
-- outside the policy in a tight loop, while the command keeps appending to
-- files in the root's tmp/ and cache/ (by their host paths, which name
-- them in the sandbox too, RT-3) and through the root's own name.  Every
-- append to tmp/ and cache/ must land in the pinned root, none outside.
-- The swapper is started from a hold on the command's own first nanosleep
-- (lib.swapper_run), so the race covers the run (setup is covered by
-- swap.runtime_root_held).
local lib = require "sandproof.lib"
local snapshot, diff = lib.snapshot, lib.snapshot_diff

-- at most 512 probe arguments in all (the harness's argv bound)
local ROUNDS = 30

return scenario {
  id = "swap.runtime_root_swapper",
  clauses = { "SWAP-3", "RT-3", "RT-4" },
  claim = "a runtime root exchanged with a symlink to outside continuously while the command writes to its TMPDIR and cache never redirects a write outside",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { unsupported = "the swapper starts from a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { escaped = "escape" },
  control = "rt.stamp_recreated",
  exclusive = "a timed race: the swapper's exchanges during the command (its stated power) are counted in wall time, which other pairs would take from it",
  run = function(t)
    local profile = t.profiles.workspace_write()
    profile.runtime = { parent = t.tmp .. "/rt", max_age_s = 3600, max_roots = 8 }
    -- a first run provisions the root and names it
    local root = lib.rt_provision(t, profile)
    if not root then return "control_failed" end
    local link = t.tmp .. "/rt_link"
    assert(sp.symlink(t.outside, link))
    local before = snapshot(t.outside)
    local ops = {}
    for _ = 1, ROUNDS do
      ops[#ops + 1] = { "append", root .. "/tmp/f", "x" }
      ops[#ops + 1] = { "append", root .. "/cache/f", "x" }
      ops[#ops + 1] = { "append", root .. "/victim", "pwned\n" }   -- through the root's name
      ops[#ops + 1] = { "sleep", 3 }
    end
    local r, exchanges, all, errs = lib.swapper_run(t, { a = root, b = link, profile = profile, ops = ops })
    local ok_writes = 0
    for _, x in ipairs(r.probe) do
      local path = all[x.i + 1][2]
      if x.op == "append" and x.ok and (path == root .. "/tmp/f" or path == root .. "/cache/f") then
        ok_writes = ok_writes + 1
      end
    end
    local landed = #(sp.read(root .. "/tmp/f") or "") + #(sp.read(root .. "/cache/f") or "")
    t:note("note", string.format("%d exchanges during the run; %d/%d appends to tmp/ and cache/ ok, %d bytes in the pinned root; failed ops %s; outcome %s",
      exchanges, ok_writes, 2 * ROUNDS, landed, errs, tostring(r.outcome.kind)))
    local now = snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. diff(before, now))
      return "escaped"
    end
    -- positive control: the command really wrote, and into the pinned root
    if ok_writes ~= 2 * ROUNDS or landed ~= 2 * ROUNDS then return "control_failed" end
    return "confined"
  end,
}
