-- The mount table the command sees is the contract's, read from inside
-- (/proc/self/mountinfo), not from what the runner says it did:
--   - each contract path is on a mount with the contract's options, found
--     by the probe's mountinfo op (the mount the path really uses, by its
--     id: a sandbox stacks its own /dev, /tmp and /proc over read-only
--     copies of the host's, and only the id says which one is in use):
--     / read-only and nosuid (FS-1), /tmp a writable tmpfs (FS-4, allow_temp),
--     /dev a read-only tmpfs with a devpts and a tmpfs shm (FS-5), /proc a
--     proc (FS-5), the workspace writable, a read-only subpath, a deny_write
--     file, .git/hooks and .git/config read-only (FS-2, META-1);
--   - the whole table (FS-1 "recursively"): every mount is read-only except
--     those the contract makes writable (the write root and what lies
--     beneath it, /tmp, /dev/pts, /dev/shm, /proc and the /dev nodes), and
--     every mount but the /dev node binds is nosuid.
-- The workspace write is the positive control (host oracle).  A mount
-- layer that fails open is seen here even when another layer (Landlock)
-- still refuses the writes.
-- (Linux: a mount-namespace property; on macOS and Windows the read-only
-- host is checked by its effect, fs.outside_system.)
local lib = require "sandproof.lib"
local array = lib.array

local NODES = { null = true, zero = true, full = true, random = true, urandom = true, tty = true }

local function beneath(path, dir)
  return path == dir or path:sub(1, #dir + 1) == dir .. "/"
end

-- May this mount be writable (and, for the device nodes, suid-capable)?
local function writable_ok(t, point)
  return beneath(point, t.ws) or beneath(point, "/tmp") or point == "/dev/pts" or
    point == "/dev/shm" or point == "/proc" or NODES[point:match("^/dev/([^/]+)$") or ""]
end

-- the first departure of the whole table from the contract, or nil
local function table_problem(t, mounts)
  for _, m in ipairs(mounts) do
    if not m.options.ro and not writable_ok(t, m.point) then
      return "writable:" .. m.point, m
    end
    if not m.options.nosuid and not NODES[m.point:match("^/dev/([^/]+)$") or ""] then
      return "suid:" .. m.point, m
    end
  end
end

return scenario {
  id = "fs.mount_options",
  clauses = { "FS-1", "FS-2", "FS-4", "FS-5", "META-1" },
  claim = "the mount table inside has the contract's options: / and every host mount read-only and nosuid, /tmp, /dev, /proc, write roots, read-only subpaths, deny_write and protected paths as specified",
  expect = { linux = { "as_contracted" },
             macos = { unsupported = "reads the sandbox's mount table (/proc/self/mountinfo): Seatbelt mounts nothing and macOS has no /proc" },
             windows = { "not_applicable" } },
  impact = { ["nosuid_missing:*"] = "hardening", ["ro_missing:*"] = "hardening", ["suid:*"] = "hardening", ["writable:*"] = "hardening",
              ["fstype:*"] = "fidelity", ["rw_missing:*"] = "fidelity", ["unreadable:*"] = "fidelity" },
  control = "fs.workspace_writable",
  run = function(t)
    if t.os ~= "linux" then return "not_applicable" end
    local ro, env = t.ws .. "/vendor", t.ws .. "/.env"
    assert(sp.mkdir(ro))
    assert(sp.write(env, "TOKEN=x\n"))
    -- path, options it must have, fstype it must be (nil: any)
    local WANT = {
      { "/", { "ro", "nosuid" } },
      { "/tmp", { "rw", "nosuid" }, "tmpfs" },
      { "/dev", { "ro", "nosuid" }, "tmpfs" },
      { "/dev/pts", { "nosuid" }, "devpts" },
      { "/dev/shm", { "nosuid" }, "tmpfs" },
      { "/proc", { "nosuid" }, "proc" },
      { t.ws, { "rw", "nosuid" } },
      { ro, { "ro", "nosuid" } },
      { env, { "ro", "nosuid" } },
      { t.ws .. "/.git/hooks", { "ro", "nosuid" } },
      { t.ws .. "/.git/config", { "ro", "nosuid" } },
    }
    if t.visible_outside then WANT[#WANT + 1] = { t.visible_outside, { "ro", "nosuid" } } end
    local ops = { { "write", t.ws .. "/control", "ok" } }                -- positive control
    for i, w in ipairs(WANT) do ops[#ops + 1] = { "mountinfo", w[1], as = "mount" .. i } end
    local p = t.profiles.workspace_write()
    p.filesystem.write_roots = array { { root = t.ws, read_only_subpaths = array { ro } } }
    p.filesystem.deny_write = array { env }
    local argv, names = lib.probe_argv(t, ops)
    table.insert(argv, 1, "sh")
    table.insert(argv, 1, 'cat /proc/self/mountinfo; exec "$@"')
    table.insert(argv, 1, "-c")
    table.insert(argv, 1, "sh")
    local r = t:ran(t:sandbox { profile = p, command = argv, op_names = names })
    if sp.read(t.ws .. "/control") ~= "ok" then return "control_failed" end
    local seen, verdict = {}, nil
    for i, w in ipairs(WANT) do
      local m = r.op["mount" .. i] or {}
      if not m.ok then
        seen[#seen + 1] = string.format("%s: %s at %s", w[1], tostring(m.errno), tostring(m.step))
        verdict = verdict or "unreadable:" .. w[1]
      else
        local set = lib.opt_set(m.options)
        seen[#seen + 1] = string.format("%s: %s %s (mount %s on %s)", w[1], m.fstype, m.options, m.mount_id, m.mount_point)
        if w[3] and m.fstype ~= w[3] then verdict = verdict or "fstype:" .. w[1] .. ":" .. tostring(m.fstype) end
        for _, o in ipairs(w[2]) do
          if not set[o] then verdict = verdict or o .. "_missing:" .. w[1] end
        end
      end
    end
    t:note("note", table.concat(seen, "\n"))
    local mounts = lib.mountinfo_parse(r.stdout)
    if #mounts == 0 then return "control_failed" end
    local bad, m = table_problem(t, mounts)
    t:note("note", string.format("%d mounts in the table; %s", #mounts,
      bad and string.format("%s (mount %d: %s %s)", bad, m.id, m.fstype, m.raw) or "every one as the contract says"))
    return verdict or bad or "as_contracted"
  end,
}
