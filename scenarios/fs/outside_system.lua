-- The host's / is read-only in the sandbox, even where the host would let
-- the caller write.  The targets live in t.visible_outside, a directory of
-- the scenario's own under /var/tmp (visible inside the sandbox, unlike
-- /tmp): a new file, an overwrite of the victim, and a new directory.  No
-- scenario touches /etc, /usr or $HOME: the unconfined control really
-- performs every write.
local function rmdir(p)
  sp.rmtree(p) -- the harness's own removal, no host rmdir(1): the same on every OS
end

return scenario {
  id = "fs.outside_system",
  clauses = { "FS-1" },
  claim = "writes to host directories outside the write roots, visible in the sandbox, do not land",
  expect = { linux = { "confined" }, macos = { "confined" }, windows = { "confined" } },
  impact = { escaped = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    if not t.visible_outside then t:skip("/var/tmp is not usable here") end
    local o = t.visible_outside
    local targets = {
      { op = "write", path = o .. "/new-file" },
      { op = "mkdir", path = o .. "/new-dir" },
    }
    local probe = { { "write", t.ws .. "/control", "ok" } }    -- positive control
    for i, x in ipairs(targets) do
      if sp.exists(x.path) then t:error("target already exists on the host: " .. x.path) end
      probe[#probe + 1] = x.op == "write" and { "write", x.path, "x", as = "target" .. i }
                          or { "mkdir", x.path, as = "target" .. i }
    end
    probe[#probe + 1] = { "append", o .. "/victim", "changed\n" }
    local ok, r = pcall(t.sandbox, t, { probe = probe })
    -- whatever happened, leave the host as it was before looking at it
    local landed = {}
    for _, x in ipairs(targets) do
      if sp.exists(x.path) then
        landed[#landed + 1] = x.path
        if x.op == "write" then sp.unlink(x.path) else rmdir(x.path) end
      end
    end
    if not ok then error(r, 0) end
    t:ran(r)
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local errs = {}
    for i, x in ipairs(targets) do
      local p = r.op["target" .. i]
      errs[#errs + 1] = x.path .. "=" .. (not p and "missing" or p.ok and "ok" or tostring(p.errno))
    end
    t:note("note", "errnos: " .. table.concat(errs, " "))
    if sp.read(o .. "/victim") ~= "untouched\n" then landed[#landed + 1] = o .. "/victim" end
    if #landed > 0 then
      t:note("note", "landed on the host (removed): " .. table.concat(landed, " "))
      return "escaped"
    end
    return "confined"
  end,
}
