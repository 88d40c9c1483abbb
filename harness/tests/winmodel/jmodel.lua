-- jmodel.lua - a model of the Windows junction primitives and of runners
-- opening policy paths, for test_win_junctions.sh: the Windows-only
-- swap.junction_* scenarios run on Linux.  A stand-in that shows those
-- scenarios (lib.junction_sweep, lib.swap_sweep with a path) can fail
-- and pass here; never a Windows result.
--
-- The primitives, through M.wrap(t) (the scenario's t with these in place
-- of the native ones):
--   t:junction(link, target)  a symlink, made or retargeted by an atomic
--                             rename; M.links keeps every target
--   t:hold { path, at, action, sandbox }, t:hold_count { path, sandbox }
--                             the oplock hold: the runner model reports
--                             each open of `path` (M.open); the at-th
--                             runs `action` after that open resolved the
--                             path (an open waiting on a broken oplock has
--                             already reached its object), as on Windows
--   t:swapper(a, b)           a background process flipping the symlink
--                             a between its target and b (rename(2))
-- The runner models (M.adapter(name, mode), over the none runner): at
-- setup the runner opens every write root, read-only subpath and
-- root\.git\hooks; the command's writes are then judged and made:
--   byname   write roots granted by name, the command opens them again
--            by name; read-only subpaths and hooks denied as the objects
--            resolved at setup (an ACL on the target)
--   pinned   the same, but the command writes into the write roots as
--            resolved at setup (a handle), never opening them again
--   refuse   a policy path that is a link is refused (setup failure)
--   reprovision  as byname, but a runtime root that is a link is
--            replaced by a fresh directory (never used through the link)
-- A runtime root (profile.runtime) is the parent's jmodel-root, made on
-- first use with tmp, cache and data, TMPDIR its tmp, reported as
-- outcome.runtime.root; it is a write root of the run.
local none = require "none"
local rewrite = require "argv"

local M = { links = {} }
local hold

-- p with every recorded link among its prefixes replaced by its target
function M.resolve(p)
  for _ = 1, 16 do
    local best
    for l in pairs(M.links) do
      if (p == l or p:sub(1, #l + 1) == l .. "/") and (not best or #l > #best) then best = l end
    end
    if not best then return p end
    p = M.links[best] .. p:sub(#best + 1)
  end
  return p
end

-- An open of path p by the runner or its command: p resolved, then the
-- hold's action if this is its at-th open.  Returns the resolution and
-- whether the action ran at this open.
function M.open(p)
  local r = M.resolve(p)
  if not (hold and p == hold.path) then return r, false end
  hold.count = hold.count + 1
  if hold.count ~= hold.at then return r, false end
  hold.hit = true
  if hold.action then hold.action(nil, "open " .. p, nil) end
  return r, true
end

local function junction(link, target)
  local tmp = link .. ".jmodel"
  sp.unlink(tmp)
  assert(sp.symlink(target, tmp))
  assert(sp.rename(tmp, link))
  M.links[link] = target
end

local function swapper(a, b)
  local stop, count = a .. ".jmodel-stop", a .. ".jmodel-count"
  local real = M.links[a]
  local bg = assert(sp.spawn_bg { argv = { "perl", "-e", [[
    my ($a, $b, $real, $stop, $count) = @ARGV; my $n = 0;
    while (!-e $stop) {
      for my $t ($b, $real) { symlink($t, "$a.flip") or die; rename("$a.flip", $a) or die; $n++ }
    }
    open(my $f, ">", $count) or die; print $f $n; close($f);]], a, b, real, stop, count } })
  return { stop = function()
    assert(sp.write(stop, ""))
    bg:wait()
    local n = tonumber(sp.read(count) or "")
    sp.unlink(stop)
    sp.unlink(count)
    return n, n and nil or "the flipper wrote no count"
  end }
end

-- t with the model's primitives (every other field and method t's own)
function M.wrap(t)
  local w = {}
  function w.junction(_, link, target) junction(link, target) end
  function w.hold(_, h)
    hold = { path = h.path, at = h.at or 0, action = h.action, count = 0, hit = false }
    local r = t:sandbox(h.sandbox)
    r.hold_total, r.hold_hit = hold.count, hold.hit
    hold = nil
    return r
  end
  function w.hold_count(self, h)
    local r = w.hold(self, { path = h.path, at = 0, sandbox = h.sandbox })
    return r.hold_total, r
  end
  function w.swapper(_, a, b) return swapper(a, b) end
  return setmetatable(w, { __index = function(_, k)
    local v = t[k]
    if type(v) ~= "function" then return v end
    return function(_, ...) return v(t, ...) end
  end })
end

local function under(p, dir) return p == dir or p:sub(1, #dir + 1) == dir .. "/" end

-- the policy paths a runner opens at setup: { path, kind = "root"|"deny" }
local function policy_paths(profile, rt_root)
  local out = {}
  if rt_root then out[#out + 1] = { path = rt_root, kind = "root" } end
  for _, w in ipairs(profile.filesystem and profile.filesystem.write_roots or {}) do
    out[#out + 1] = { path = w.root, kind = "root" }
    for _, ro in ipairs(w.read_only_subpaths or {}) do out[#out + 1] = { path = ro, kind = "deny" } end
    if sp.lstat(w.root .. "/.git/hooks") then out[#out + 1] = { path = w.root .. "/.git/hooks", kind = "deny" } end
  end
  return out
end

local DENIED = "/proc/sandproof-jmodel-denied/x" -- a write there fails: the model's denial

-- the command's write to a: its path as the model makes it, or DENIED
local function command_path(a, paths, pins, deny)
  local root
  for _, p in ipairs(paths) do
    if p.kind == "root" and under(a, p.path) and (not root or #p.path > #root) then root = p.path end
  end
  if not root then return DENIED end
  if pins then
    a = pins[root] .. a:sub(#root + 1)
  else
    for _, p in ipairs(paths) do
      if under(a, p.path) and hold and p.path == hold.path then
        local r, acted = M.open(p.path)
        if acted then a = r .. a:sub(#p.path + 1) end -- this open reached its object first
      end
    end
  end
  local resolved = M.resolve(a)
  for _, d in ipairs(deny) do
    if under(resolved, d) then return DENIED end
  end
  return a
end

-- The runtime root after setup: a link replaced (reprovision), made when
-- absent.  Returns whether it was re-provisioned.
local function provision(root, mode)
  local st, fresh = sp.lstat(root), false
  if mode == "reprovision" and st and st.type == "link" then
    assert(sp.unlink(root))
    M.links[root], st, fresh = nil, nil, true
  end
  if not st then
    assert(sp.mkdir(root))
    for _, d in ipairs { "tmp", "cache", "data" } do assert(sp.mkdir(root .. "/" .. d)) end
  end
  return fresh
end

function M.adapter(name, mode)
  local A = setmetatable({ name = name }, { __index = none })
  A.capabilities = {}
  for k, v in pairs(none.capabilities) do A.capabilities[k] = v end
  A.capabilities.runtime_roots = true
  function A.sandbox(t, spec)
    local rt = spec.profile.runtime
    local rt_root = rt and rt.parent .. "/jmodel-root"
    if rt and not sp.lstat(rt.parent) then assert(sp.mkdir(rt.parent)) end
    local paths, pins, deny = policy_paths(spec.profile, rt_root), mode == "pinned" and {} or nil, {}
    for _, p in ipairs(paths) do
      local st = sp.lstat(p.path)
      if mode == "refuse" and st and st.type == "link" then
        return { outcome = { kind = "sandbox_setup_failure", stdout = "", stderr = "", denials = {},
                             setup_error = { step = "policy", detail = p.path .. " is a link" } } }
      end
      local r = M.open(p.path)
      if pins and p.kind == "root" then pins[p.path] = r end
      if p.kind == "deny" then deny[#deny + 1] = r end
    end
    local fresh = rt_root and provision(rt_root, mode)
    local s = rewrite(spec, function(a) return command_path(a, paths, pins, deny) end)
    s.env = {}
    for k, v in pairs(spec.env or {}) do s.env[k] = v end
    if rt_root then s.env.TMPDIR = rt_root .. "/tmp" end
    local r = none.sandbox(t, s)
    if rt_root and r.outcome then r.outcome.runtime = { root = rt_root, reprovisioned = fresh } end
    return r
  end
  return A
end

return M
