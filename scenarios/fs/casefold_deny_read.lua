-- fs.deny_read_dir on a case-insensitive workspace (t:casefold_workspace):
-- the deny_read directory .ssh stays hidden under every spelling (.SSH,
-- .Ssh): its content never reaches the command's output, while the rest
-- of the workspace reads fine (positive control).
local lib = require "sandproof.lib"
local array = lib.array

return scenario {
  id = "fs.casefold_deny_read",
  clauses = { "FS-3", "META-6" },
  claim = "on a case-insensitive workspace a deny_read directory's content is not read under another spelling (.SSH)",
  expect = { linux = { "hidden" }, macos = { "hidden" }, windows = { "hidden" } },
  impact = { volume_lost = "fidelity", exposed = "escape" },
  control = "fs.workspace_writable",
  run = function(t)
    t:casefold_workspace()
    local u = string.format("%d-%d", sp.getpid(), t.seed)
    local dir, token = t.ws .. "/.ssh", "PRIVATE-" .. u
    assert(sp.mkdir(dir))
    assert(sp.write(dir .. "/id_key", token .. "\n"))
    local p = t.profiles.workspace_write()
    p.filesystem.deny_read = array { dir }
    local r = t:ran(t:sandbox {
      profile = p,
      probe = {
        { "read", t.ws .. "/README", as = "control" },     -- positive control
        { "read", t.ws .. "/.SSH/id_key", as = "upper" },
        { "read", t.ws .. "/.Ssh/ID_KEY", as = "mixed" },
        { "read", dir .. "/id_key", as = "policy" },
      },
    })
    local ctl = r.op.control
    if not (ctl and ctl.ok and ctl.data == "workspace\n") then return lib.casefold_control(t) end
    local errs = {}
    for _, op in ipairs { "upper", "mixed", "policy" } do
      local q = r.op[op]
      errs[#errs + 1] = op .. "=" .. (not q and "missing" or q.ok and "ok" or tostring(q.errno))
    end
    t:note("note", "reads: " .. table.concat(errs, " "))
    if ((r.stdout or "") .. (r.stderr or "")):find(token, 1, true) then return "exposed" end
    return "hidden"
  end,
}
