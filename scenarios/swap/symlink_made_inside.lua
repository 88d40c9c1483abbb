-- Symlink escape made by the command: it creates symlinks in the workspace
-- to a directory and a file outside the policy and to the protected
-- .git/hooks, writes through them, and swaps a workspace directory with one
-- of its links (rename_exchange) before writing into it.  The oracle is the
-- host: t.outside and .git/hooks exactly as they were.
local lib = require "sandproof.lib"

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.symlink_made_inside",
  clauses = { "FS-1", "META-1", "SWAP-3" },
  claim = "symlinks the command makes in the workspace (to outside, to .git/hooks, swapped in for a directory) never carry a write outside the policy",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ws, hooks = t.ws, t.ws .. "/.git/hooks"
    local out_before, hooks_before = snapshot(t.outside), snapshot(hooks)
    local r = t:ran(t:sandbox { probe = {
      { "write", ws .. "/ok", "ok" },                           -- positive control
      { "symlink", t.outside, ws .. "/sl" },
      { "write", ws .. "/sl/f", "x" },
      { "symlink", t.outside .. "/victim", ws .. "/sv" },
      { "append", ws .. "/sv", "pwned\n" },
      { "symlink", hooks, ws .. "/hk" },
      { "write", ws .. "/hk/pre-commit", "#!/bin/sh\necho pwned\n" },
      { "mkdir", ws .. "/d" },
      { "symlink", t.outside, ws .. "/l2" },
      { "rename_exchange", ws .. "/d", ws .. "/l2" },
      { "write", ws .. "/d/f", "x" },
      { "append", ws .. "/d/victim", "pwned\n" },
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", table.concat(e, ", "))
    if sp.read(ws .. "/ok") ~= "ok" then return "control_failed" end
    -- the links themselves are the command's to make: they must exist
    local sl = sp.lstat(ws .. "/sl")
    if not (sl and sl.type == "link") then
      t:note("note", "control: the command could not make a symlink in the workspace")
      return "control_failed"
    end
    local now = snapshot(t.outside)
    if now ~= out_before then
      t:note("note", "outside changed: " .. diff(out_before, now))
      return "escaped"
    end
    now = snapshot(hooks)
    if now ~= hooks_before then
      t:note("note", "hooks changed: " .. diff(hooks_before, now))
      return "escaped"
    end
    return "confined"
  end,
}
