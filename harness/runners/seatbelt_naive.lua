-- runners/seatbelt_naive.lua - a weak peer on purpose: the command under
-- macOS's /usr/bin/sandbox-exec with the profile a hurried integrator
-- writes by hand, the way many agent wrappers do:
--
--   (version 1)
--   (allow default)                              ; everything, then
--   (deny file-write*)                           ; no writes ...
--   (allow file-write* (subpath "<root>") ...)   ; ... but in the write roots,
--          (subpath "/private/tmp") (subpath "/private/var/folders")  ; temp,
--          (literal "/dev/null") ...             ; and the terminal nodes
--   (deny file-write* (subpath "<deny_write>"))  ; deny_write, read_only_subpaths
--   (deny file-read* (subpath "<deny_read>"))    ; deny_read
--   (deny network*)                              ; network=deny ...
--   (allow network* (remote ip "localhost:*"))   ; ... "but local dev servers"
--
-- Paths go in as the request spells them (never canonical), protected
-- metadata names get no rule at all, ancestors no move-blocking deny,
-- mach-lookup and process-exec stay open, and /tmp is the host's.  It
-- exists so the macOS scenarios have a peer they must catch failing; what
-- it lacks it lacks honestly (capabilities).  Off macOS it is unavailable.
-- Not verified on a Mac yet (docs/RUNNERS.md).
local sp = require "sp"

local peer = require "sandproof.peer"

local M = { name = "seatbelt_naive" }
M.capabilities, M.reasons = peer.capabilities("seatbelt_naive", {
  block_unix_sockets = "its profile has no unix-socket rule",
  hold = "macOS has no syscall interposition for the harness's hold",
  fault = "macOS has no syscall interposition for the harness's fault",
})

local SANDBOX_EXEC = "/usr/bin/sandbox-exec"

function M.available()
  if sp.os ~= "macos" then
    return false, "seatbelt_naive needs macOS's " .. SANDBOX_EXEC .. " (this is " .. tostring(sp.os) .. ")"
  end
  if not sp.exists(SANDBOX_EXEC) then return false, SANDBOX_EXEC .. " not found" end
  if not sp.exists(peer.TIMEOUT) then return false, "timeout(1) not installed (coreutils)" end
  return true
end

function M.version() return "sandbox-exec with a naive hand-written profile" end

-- An SBPL string literal: '"' and '\' escaped, nothing else changed.
local function lit(s) return '"' .. tostring(s):gsub('[\\"]', "\\%0") .. '"' end

local function rules(out, verb, kind, paths)
  if #paths == 0 then return end
  local parts = {}
  for _, p in ipairs(paths) do parts[#parts + 1] = "(" .. kind .. " " .. lit(p) .. ")" end
  out[#out + 1] = "(" .. verb .. " " .. table.concat(parts, " ") .. ")"
end

-- The naive profile for the request's policy (see the header).
function M.profile(p)
  local fs, out = p.filesystem or {}, { "(version 1)", "(allow default)" }
  if fs.kind ~= "unrestricted" then
    out[#out + 1] = "(deny file-write*)"
    local w, ro = {}, {}
    for _, r in ipairs(fs.write_roots or {}) do
      w[#w + 1] = r.root
      for _, sub in ipairs(r.read_only_subpaths or {}) do ro[#ro + 1] = sub end
    end
    if fs.allow_temp ~= false then
      w[#w + 1], w[#w + 2] = "/private/tmp", "/private/var/folders"
    end
    rules(out, "allow file-write*", "subpath", w)
    rules(out, "allow file-write*", "literal", { "/dev/null", "/dev/tty", "/dev/zero" })
    for _, d in ipairs(fs.deny_write or {}) do ro[#ro + 1] = d end
    rules(out, "deny file-write*", "subpath", ro)
    rules(out, "deny file-read*", "subpath", fs.deny_read or {})
  end
  if not (p.network and p.network.mode == "allow") then
    out[#out + 1] = "(deny network*)"
    out[#out + 1] = '(allow network* (remote ip "localhost:*"))'
  end
  return table.concat(out, "\n") .. "\n"
end

-- sandbox-exec's own failures: nothing on stdout and "sandbox-exec: ..."
-- last on stderr (a profile it refused, a command it could not run).
local function own_failure(o, _, last)
  if o.stdout == "" and last:match("^sandbox%-exec: ") then
    local text = last:match(": ([^:]+)$")
    o.kind = "sandbox_setup_failure"
    o.setup_error = { step = "seatbelt", errno = text and peer.STRERROR[text], detail = last }
  end
end

function M.sandbox(t, spec)
  local ok, why = M.available()
  if not ok then t:skip(why) end
  local p = spec.profile or {}
  local file = t.tmp .. "/naive.sb"
  assert(sp.write(file, M.profile(p)))
  local env = {}
  for k, v in pairs(spec.env or {}) do env[#env + 1] = k .. "=" .. v end
  env[#env + 1] = "SANDPROOF_SANDBOXED=1"
  env[#env + 1] = "SANDPROOF_NETWORK=" .. ((p.network and p.network.mode == "allow") and "allow" or "deny")
  local argv = { SANDBOX_EXEC, "-f", file }
  for _, a in ipairs(spec.command) do argv[#argv + 1] = a end
  local r = peer.spawn(t, spec, argv, { cwd = spec.cwd, env = env })
  return peer.result(peer.outcome("seatbelt_naive", spec, r, own_failure), r)
end

return M
