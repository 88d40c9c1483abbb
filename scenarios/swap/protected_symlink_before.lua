-- (a) Before the run: a protected path (.git/hooks), or its ancestor .git,
-- is a symlink to a directory outside the policy.  A runner that follows it
-- would protect the outside and leave the hook's real name open, or write
-- through the link.  The contract (META-5, SWAP-1) refuses such a run.
-- Host oracles: t.outside unchanged, and no hook planted in the workspace.
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.protected_symlink_before",
  clauses = { "META-5", "SWAP-1", "META-1" },
  claim = "a protected path (.git/hooks) that is, or passes through, a symlink to outside when the run starts is refused or confined: no hook lands anywhere",
  expect = { linux = { "refused", "confined" }, macos = { "refused", "confined" },
             windows = { "refused", "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local git, hooks = t.ws .. "/.git", t.ws .. "/.git/hooks"
    assert(sp.mkdir(t.outside .. "/git"))
    assert(sp.mkdir(t.outside .. "/git/hooks"))
    local out_before, git_before = snapshot(t.outside), snapshot(git)
    local probe = {
      { "write", t.ws .. "/ok", "ok" },
      { "write", hooks .. "/pre-commit", "#!/bin/sh\necho pwned\n", as = "hook" },
      { "append", git .. "/config", "[core]\n\thooksPath = /tmp\n" },
      { "append", hooks .. "/victim", "pwned\n" },
    }
    -- positive control: the real layout runs, the workspace is writable and
    -- the hook is not
    local r0 = t:ran(t:sandbox { probe = probe })
    if sp.read(t.ws .. "/ok") ~= "ok" then return "control_failed" end
    if snapshot(git) ~= git_before then
      t:note("note", "changed in the control run: " .. diff(git_before, snapshot(git)))
      return "escaped"
    end
    t:note("note", "control: hook write errno " .. tostring(r0.op.hook and r0.op.hook.errno))
    local saved = t.tmp .. "/saved"
    local attacks = {
      { name = ".git/hooks -> outside", from = hooks, to = t.outside },
      { name = ".git -> outside/git", from = git, to = t.outside .. "/git" },
    }
    local ran = 0
    for _, a in ipairs(attacks) do
      assert(sp.rename(a.from, saved))
      assert(sp.symlink(a.to, a.from))
      local r = t:sandbox { probe = probe }
      local o = r.outcome
      assert(sp.unlink(a.from))
      assert(sp.rename(saved, a.from))
      if o.kind == "sandbox_setup_failure" then
        t:note("note", string.format("%s: refused, step %s errno %s", a.name,
          tostring(o.setup_error and o.setup_error.step), tostring(o.setup_error and o.setup_error.errno)))
      else
        t:ran(r)
        ran = ran + 1
        local e = {}
        for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
        t:note("note", a.name .. ": ran (" .. tostring(o.kind) .. "): " .. table.concat(e, ", "))
      end
      if snapshot(t.outside) ~= out_before then
        t:note("note", "outside changed through " .. a.name .. ": " .. diff(out_before, snapshot(t.outside)))
        return "escaped"
      end
      if snapshot(git) ~= git_before then
        t:note("note", ".git changed through " .. a.name .. ": " .. diff(git_before, snapshot(git)))
        return "escaped"
      end
    end
    return ran == 0 and "refused" or "confined"
  end,
}
