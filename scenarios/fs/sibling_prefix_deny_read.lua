-- deny_read is a component boundary, not a string prefix: deny_read on
-- /x/proj hides its content and leaves /x/proj2 readable, and the reverse
-- (deny_read on proj2 leaves proj readable).  Checked for a pair inside the
-- write root (t.ws/proj, t.ws/proj2) and, in the same runs, a pair outside
-- it that the sandbox can see (t.visible_outside/proj, .../proj2).  Each
-- file holds a unique token: the hidden one must appear nowhere in the
-- command's output, the sibling's must be read back (the positive control
-- that the hiding is not a blanket refusal); the host files are unchanged.
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.sibling_prefix_deny_read",
  clauses = { "FS-3" },
  claim = "deny_read on /x/proj hides it and leaves /x/proj2 readable, nor the reverse, inside and outside the write roots",
  expect = { linux = { "exact" }, macos = { "exact" }, windows = { "exact" } },
  impact = { exposed = "escape", host_changed = "escape", sibling_hidden = "fidelity" },
  run = function(t)
    local bases = { t.ws, t.visible_outside }
    if not t.visible_outside then t:note("note", "/var/tmp unusable: only the pair inside the write root is checked") end
    local files, token = {}, {}
    for _, b in ipairs(bases) do
      for _, name in ipairs { "proj", "proj2" } do
        local d = b .. "/" .. name
        assert(sp.mkdir(d))
        files[#files + 1] = d
        -- closed by "-end": no token is a prefix of another
        token[d] = string.format("TOKEN-%d-%d-%d-end", sp.getpid(), t.seed, #files)
        assert(sp.write(d .. "/secret", token[d] .. "\n"))
      end
    end
    local notes, verdict = {}, "exact"
    for _, hide in ipairs { "proj", "proj2" } do
      local show = hide == "proj" and "proj2" or "proj"
      local denied, ops = array {}, {}
      for i, b in ipairs(bases) do
        denied[#denied + 1] = b .. "/" .. hide
        ops[#ops + 1] = { "read", b .. "/" .. show .. "/secret", as = "show" .. i }  -- the sibling: must read
        ops[#ops + 1] = { "read", b .. "/" .. hide .. "/secret", as = "hide" .. i }  -- hidden
      end
      local p = t.profiles.workspace_write()
      p.filesystem.deny_read = denied
      local r = t:ran(t:sandbox { profile = p, probe = ops })
      local out = (r.stdout or "") .. (r.stderr or "")
      for i, b in ipairs(bases) do
        local s, h = r.op["show" .. i] or {}, r.op["hide" .. i] or {}
        notes[#notes + 1] = string.format("deny_read %s/%s: sibling read %s, read %s",
          b == t.ws and "ws" or "visible_outside", hide, s.ok and "ok" or tostring(s.errno),
          h.ok and "ok" or tostring(h.errno))
        if out:find(token[b .. "/" .. hide], 1, true) then verdict = "exposed"
        elseif s.data ~= token[b .. "/" .. show] .. "\n" and verdict == "exact" then verdict = "sibling_hidden" end
      end
    end
    t:note("note", table.concat(notes, "; "))
    for _, d in ipairs(files) do
      if sp.read(d .. "/secret") ~= token[d] .. "\n" then return "host_changed" end
    end
    return verdict
  end,
}
