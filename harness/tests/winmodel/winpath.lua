-- winpath.lua - a model of how Win32 names an object by a spelling of its
-- path, for test_win_spellings.sh: the Windows-only meta.win_hooks_*
-- scenarios run on Linux against a runner whose probe paths are first
-- rewritten as Windows would resolve them.  A stand-in that shows those
-- scenarios can fail (and pass) here; never a Windows result.
--
-- M.resolve(p, on) rewrites the absolute path p for the spelling classes
-- set in `on` only (each alone shows which spelling a scenario needs):
--   prefix_q    \\?\X          -> X
--   prefix_dot  \\.\X          -> X
--   unc         \\localhost\C$\X -> C:\X; \\localhost\root$\X -> \X (the
--               POSIX stand-in's root, meta.win_hooks_prefix)
--   trailing    trailing dots and spaces of every name dropped
--   case        a name matched case-insensitively against its directory
--   short       NAME~N matched against the entries' generated 8.3 names
--   stream      D:S, a named stream of D, kept in its object as D/:S (a
--               write to it is a change of D, as on NTFS)
--   data        F::$DATA (F's unnamed stream) -> F
-- Separators: "\" is "/".  A drive letter C: is the root "/".  A \\ prefix
-- whose class is off is left as spelled.
local M = {}

local function strip_prefix(p, on)
  if on.prefix_q and p:find("^//%?/") then return p:sub(4) end
  if on.prefix_dot and p:find("^//%./") then return p:sub(4) end
  if on.unc then
    local rest = p:match("^//localhost/%a%$(/.*)$") or p:match("^//localhost/root%$(/.*)$")
    if rest then return rest end
  end
  return p
end

-- The 8.3 name Windows generates first for a long name (~1): leading dots
-- dropped, spaces and dots out of the base, upper case, six characters.
local function short_name(name)
  local n = name:gsub("^%.+", "")
  local base, ext = n:match("^(.*)%.([^.]*)$")
  base, ext = base or n, ext or ""
  base = base:gsub("[%s%.]", ""):upper():sub(1, 6)
  return base .. "~1" .. (ext ~= "" and ("." .. ext:upper():sub(1, 3)) or "")
end

local function match_entry(dir, name, on)
  if sp.lstat(dir .. "/" .. name) then return name end
  for _, e in ipairs(sp.listdir(dir) or {}) do
    if on.case and e:lower() == name:lower() then return e end
    if on.short and name:find("~%d") and short_name(e) == name:upper() then return e end
  end
  return name
end

function M.resolve(p, on)
  local q = p:gsub("\\", "/")
  local s = strip_prefix(q, on)
  -- a prefix of a class not modelled stays as spelled: on Linux, a name
  -- with backslashes in the cwd (never "//" read as "/")
  if s == q and q:find("^//") then return p end
  p = s:gsub("^%a:/", "/")
  local out = ""
  for name in p:gmatch("[^/]+") do
    local stream
    if on.data then name = name:gsub("::%$DATA$", "") end
    if on.stream then name, stream = name:match("^([^:]*):?(.*)$") end
    if on.trailing and not name:find("^%.%.?$") then name = name:gsub("[%. ]+$", "") end
    out = out .. "/" .. match_entry(out == "" and "/" or out, name, on)
    if stream and stream ~= "" then out = out .. "/:" .. stream end
  end
  return out == "" and "/" or out
end

-- An adapter over `base` (a runner module) that rewrites every probe
-- argument naming an absolute path (it begins with / or \) by resolve.
local rewrite = require "argv"

function M.adapter(name, base, on)
  local A = setmetatable({ name = name }, { __index = base })
  function A.sandbox(t, spec)
    return base.sandbox(t, rewrite(spec, function(a) return M.resolve(a, on) end))
  end
  return A
end

return M
