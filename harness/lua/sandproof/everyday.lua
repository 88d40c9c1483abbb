-- sandproof.everyday: the proc.everyday_* scenarios' shared run (issue 33,
-- section 2): one everyday command, run twice through the runner under
-- test, each run judged on the host by what it left in the workspace:
--   1. reads unrestricted (read_roots {"/"}), the usual workspace profile;
--   2. reads restricted to the workspace, the platform's own roots
--      (include_platform_roots) and the install prefix of the tool.
-- Outcomes: "works" (both did what they were asked), "works_reads_refused"
-- (the first did, the second was refused as a setup failure, EOPNOTSUPP:
-- Linux's FS-1 takes only read_roots {"/"}), "failed_default:<why>",
-- "failed_restricted:<why>"; a tool absent from the host is a skip.
local lib = require "sandproof.lib"
local array = lib.array

local M = {}

-- The directories the sandbox's PATH names, in order (Homebrew's first, as
-- a macOS shell has it).
M.PATH = "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"

-- The tool's path on the host (the first of M.PATH that has it), or nil.
function M.find(tool)
  for dir in M.PATH:gmatch("[^:]+") do
    if sp.exists(dir .. "/" .. tool) then return dir .. "/" .. tool end
  end
  return nil
end

-- The real path of a host file through the host's python3 (a symlink such
-- as /usr/local/bin/node resolved into its install), or the path itself
-- when none resolves it.
local function realpath(t, path)
  local py = M.find("python3")
  if not py then return path end
  local r = t:spawn { argv = { py, "-c", "import os,sys; print(os.path.realpath(sys.argv[1]))", path },
                      timeout_ms = 20000 }
  local out = r.code == 0 and tostring(r.stdout or ""):match("^(/[^\n]*)") or nil
  return out or path
end

-- What a tool at real path p reads besides the platform's roots: its
-- install prefix (two levels above bin/tool), all of Homebrew's when it is
-- Homebrew's (its libraries live in other kegs).
local function prefix_of(p)
  for _, brew in ipairs { "/opt/homebrew", "/usr/local/Cellar" } do
    if p:sub(1, #brew + 1) == brew .. "/" then return brew == "/usr/local/Cellar" and "/usr/local" or brew end
  end
  return (p:match("^(.*)/[^/]+/[^/]+$")) or "/"
end

local function restricted_profile(t, extra_root)
  local p = t.profiles.workspace_write()
  local roots = { t.ws }
  if extra_root ~= "/" and extra_root:sub(1, 5) ~= "/usr/" and extra_root ~= "/usr" then
    roots[#roots + 1] = extra_root
  end
  p.filesystem.read_roots = array(roots)
  p.filesystem.include_platform_roots = true
  return p
end

-- One run of command with profile; nil when check(t) holds after it, else
-- why not (the outcome's kind, or "no_effect").
local function one(t, label, profile, o)
  local r = t:sandbox { profile = profile, command = o.command, timeout_ms = o.timeout_ms or 120000,
                        env = { PATH = M.PATH, HOME = t.ws } }
  local out = r.outcome or {}
  t:note("note", string.format("%s: kind %s, exit %s, setup %s; stderr: %s", label, tostring(out.kind),
    tostring(out.exit and out.exit.code), sp.json_encode(out.setup_error or {}),
    tostring(out.stderr or ""):sub(1, 600)))
  if o.check(t) then return nil, out end
  return out.kind == "success" and "no_effect" or tostring(out.kind), out
end

-- o: { tool = "git", command = {...}, check = function(t) -> bool, reset = function(t) }
function M.run(t, o)
  local path = M.find(o.tool)
  if not path then t:skip(o.tool .. " is not installed on this host (" .. M.PATH .. ")") end
  local why = one(t, "reads unrestricted", t.profiles.workspace_write(), o)
  if why then return "failed_default:" .. why end
  if o.reset then o.reset(t) end
  local prefix = prefix_of(realpath(t, path))
  local why2, out = one(t, "reads restricted (+" .. prefix .. ")", restricted_profile(t, prefix), o)
  if not why2 then return "works" end
  if out.kind == "sandbox_setup_failure" and out.setup_error and
     out.setup_error.errno == "EOPNOTSUPP" and not o.check(t) then
    return "works_reads_refused"
  end
  return "failed_restricted:" .. why2
end

return M
