-- Hard-link escape made by the command: it hard-links into the workspace
-- a file outside the policy (t.outside/victim), a file of a read-only
-- subpath and the protected .git/config, then writes through the new
-- names (a hooksPath in .git/config would make git run any script).
-- Outside the sandbox all of them share one filesystem with the workspace,
-- so without a sandbox each link succeeds; in the sandbox they must fail
-- (EXDEV across mounts, or the source is not there).  The oracle is the
-- host: the three files exactly as they were.
local lib = require "sandproof.lib"
local array = lib.array

local snapshot = lib.snapshot

local diff = lib.snapshot_diff

return scenario {
  id = "swap.hardlink_made_inside",
  clauses = { "FS-1", "FS-2", "META-1" },
  claim = "hard links the command makes in the workspace to an outside file, a read-only file or .git/config never carry a write to the original",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    local ws, ro = t.ws, t.ws .. "/ro"
    assert(sp.mkdir(ro))
    assert(sp.write(ro .. "/keep", "keep\n"))
    local watched = { t.outside, ro, ws .. "/.git/config" }
    local before = {}
    for i, p in ipairs(watched) do before[i] = snapshot(p) end
    local profile = t.profiles.workspace_write()
    profile.filesystem.write_roots = array { { root = ws, read_only_subpaths = array { ro } } }
    local r = t:ran(t:sandbox { profile = profile, probe = {
      { "write", ws .. "/ok", "ok" },                           -- positive control
      { "link", t.outside .. "/victim", ws .. "/h_victim" },
      { "append", ws .. "/h_victim", "pwned\n" },
      { "link", ro .. "/keep", ws .. "/h_keep" },
      { "append", ws .. "/h_keep", "pwned\n" },
      { "link", ws .. "/.git/config", ws .. "/h_config" },
      { "append", ws .. "/h_config", "[core]\n\thooksPath = /tmp\n" },
      { "link", ws .. "/README", ws .. "/h_readme" },             -- allowed: within the write root
    } })
    local e = {}
    for _, x in ipairs(r.probe) do e[#e + 1] = x.op .. " " .. (x.ok and "ok" or tostring(x.errno)) end
    t:note("note", table.concat(e, ", "))
    if sp.read(ws .. "/ok") ~= "ok" then return "control_failed" end
    -- positive control for link(2) itself: a link within the write root works
    if sp.read(ws .. "/h_readme") ~= "workspace\n" then
      t:note("note", "control: a hard link inside the write root failed")
      return "control_failed"
    end
    for i, p in ipairs(watched) do
      local now = snapshot(p)
      if now ~= before[i] then
        t:note("note", p:sub(#t.tmp + 2) .. " changed: " .. diff(before[i], now))
        return "escaped"
      end
    end
    return "confined"
  end,
}
