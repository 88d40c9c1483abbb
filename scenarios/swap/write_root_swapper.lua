-- (c) During the run: from the command's first instruction on, a swapper
-- exchanges the write root with a symlink to a directory outside the policy
-- in a tight loop while the command keeps appending to a file in the write
-- root.  The write root in the sandbox must stay the directory the runner
-- pinned: every append lands in it, none outside.  The swapper is started
-- from a hold on the command's own first nanosleep (lib.swapper_run), so
-- the race covers the run itself (setup is covered, deterministically, by
-- swap.write_root_held).  The write root has no protected names here, so no
-- monitor stops the run early: the claim is about the mounts alone (SWAP-3).
local lib = require "sandproof.lib"
local array, snapshot, diff = lib.array, lib.snapshot, lib.snapshot_diff

local WRITES = 60

return scenario {
  id = "swap.write_root_swapper",
  clauses = { "SWAP-3", "FS-1" },
  claim = "a write root exchanged with a symlink to outside continuously while the command writes never redirects a write outside: every write lands in the pinned directory",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { unsupported = "the swapper starts from a seccomp hold on the command's first sleep; a Windows hold names a path (an oplock), not a syscall" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  exclusive = "a timed race: the swapper's exchanges during the command (its stated power) are counted in wall time, which other pairs would take from it",
  run = function(t)
    local root, link = t.tmp .. "/root", t.tmp .. "/link"
    assert(sp.mkdir(root))
    assert(sp.symlink(t.outside, link))
    local before = snapshot(t.outside)
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = root, protected_metadata_names = array {} } }
    local ops = {}
    for _ = 1, WRITES do
      ops[#ops + 1] = { "append", root .. "/f", "x" }
      ops[#ops + 1] = { "sleep", 2 }
    end
    local r, exchanges = lib.swapper_run(t, { a = root, b = link, profile = p, cwd = "/", ops = ops })
    local ok_writes = 0
    for _, x in ipairs(r.probe) do
      if x.op == "append" and x.ok then ok_writes = ok_writes + 1 end
    end
    local landed = #(sp.read(root .. "/f") or "")
    t:note("note", string.format("%d exchanges during the run; %d/%d appends ok, %d bytes in the pinned root; outcome %s",
      exchanges, ok_writes, WRITES, landed, tostring(r.outcome.kind)))
    local now = snapshot(t.outside)
    if now ~= before then
      t:note("note", "outside changed: " .. diff(before, now))
      return "escaped"
    end
    -- positive control: the command really wrote, and into the pinned root
    if ok_writes ~= WRITES or landed ~= WRITES then return "control_failed" end
    return "confined"
  end,
}
