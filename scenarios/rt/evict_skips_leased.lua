-- Eviction never takes a root from under a live run: while a run holds its
-- root's lease, gc with max_age 0 and max_roots 0 must skip it, and the
-- run's TMPDIR stays writable to the end.  Shell-free: a first run
-- provisions the root and reports its TMPDIR; the leased run is probe ops
-- there (write, sleep 1.5 s, read back, append).
local lib = require "sandproof.lib"

return scenario {
  id = "rt.evict_skips_leased",
  clauses = { "RT-4", "RT-6" },
  claim = "gc skips a runtime root whose lease is held by a running command",
  expect = { linux = { "kept" }, macos = { "kept" }, windows = { "kept" } },
  impact = { evicted = "fidelity", gc_failed = "fidelity", ["run_failed:*"] = "fidelity" },
  control = "rt.stamp_recreated",
  needs = { "gc" },
  exclusive = "a load-sensitive window: the evictor, 700 ms after its start, must strike while the run (sleeping 1.5 s) holds its lease; a slow start would put the strike outside it",
  run = function(t)
    local parent = t.tmp .. "/rt"
    local p = t.profiles.workspace_write()
    p.runtime = { parent = parent, max_age_s = 3600, max_roots = 8 }
    local first = lib.rt_provision(t, p)
    if not first then return "control_failed" end
    local x = first .. "/tmp/x"
    -- an evictor that strikes 700 ms in, while the run holds its lease
    local bg = t:gc_async({ parent = parent, max_age_s = 0, max_roots = 0, delay_ms = 700 })
    local r, ran, why = lib.rt_run(t, { profile = p }, first, {
      { "write", x, "a\n" }, { "sleep", 1500 }, { "read", x, as = "x" }, { "append", x, "b\n" } })
    local gc_result = bg:wait()
    t:note("note", "run kind " .. tostring(r.outcome.kind) .. ", gc: " .. tostring(gc_result and gc_result.summary))
    if r.outcome.kind ~= "success" then return "run_failed:" .. tostring(r.outcome.kind) end
    if not (gc_result and gc_result.ran) then return "gc_failed" end
    local root = r.outcome.runtime and r.outcome.runtime.root
    if not (root and sp.exists(root)) then return "evicted" end
    if not ran or r.op.x.data ~= "a\n" then
      t:note("note", "TMPDIR lost during the run: " .. tostring(why or ("x read back " .. tostring(r.op.x.data))))
      return "evicted"
    end
    return "kept"
  end,
}
