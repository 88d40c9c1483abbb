-- sandproof.impact - the one classifier of failures (docs/CONTRACT.md,
-- "Impact classes").  The catalogue's engine and `sandproof explore` both
-- class a failing outcome here, and nowhere else:
--   M.of(impact, outcome)   the class a scenario's `impact` table gives an
--                           outcome (its exact key, else its longest
--                           prefix key "p*"); the engine for every fail,
--                           explore for every violation (through the table
--                           its emitted scenarios carry, M.EXPLORE, so a
--                           finding's class is the class its replay gets)
--   M.SEEN[kind]            the class of each kind of thing explore's
--                           oracle observes (its outcomes are "<class>:
--                           <what>")
-- What each class means, and so which one an outcome gets:
--   escape     an effect beyond the grant was observed: a host file or
--              protected name changed, hidden content read, a listener
--              outside reached, resources used past a stated limit, a host
--              process signalled or traced, the caller's terminal written.
--              The grant is what the request allows as written (a write
--              in the workspace a refused request names is inside it).
--   exposure   something the contract protects was seen or writable from
--              inside for a while, nothing was done through it.
--   hardening  a clause that removes attack surface or adds a layer of
--              confinement was not enforced (a seccomp rule, io_uring,
--              ptrace or TIOCSTI within the run, a nested user namespace,
--              a capability, a mount option, a refusal of a policy the
--              runner cannot keep) and no effect beyond the grant was
--              observed.
--   reporting  the outcome or its denials are wrong or missing.
--   fidelity   the command's environment differs from what it should see.
--   residue    something of the run was left behind.
local sp = require "sp"

local M = {}

-- The classes in the order reports list them, from the results store
-- (reports/store: store_impacts, the schema's CHECK): one list for C and
-- Lua.  Escape first, then exposure (something protected was seen across
-- the boundary), then hardening (the boundary is weaker than the contract
-- requires, nothing was seen crossing it), then reporting, fidelity and
-- residue.
M.CLASSES = sp.impact_classes
M.RANK = {}
for i, c in ipairs(M.CLASSES) do M.RANK[c] = i end

-- What explore's oracle observes, by kind, and its class.
M.SEEN = {
  host_changed = "escape",      -- a guarded entry on the host changed
  hidden_read = "escape",       -- a read returned a secret the policy hides
  listener_reached = "escape",  -- a lab listener counted a peer under deny
  surface = "hardening",        -- a forbidden socket family, io_uring, ptrace or
                                -- process_vm_readv of the run's own process,
                                -- TIOCSTI into a pty the program opened itself
  dishonest = "reporting",      -- a denial missing, or one of nothing done
  left_behind = "residue",      -- a process of the run outlived it
}

-- The impact table of every scenario explore writes: its outcomes are
-- "<class>: <what>" for each class M.SEEN can give.
M.EXPLORE = {}
for _, c in pairs(M.SEEN) do M.EXPLORE[c .. "*"] = c end

-- The class impact declares for outcome o: its exact key, else the longest
-- prefix key ("p*") o starts with; nil when none.
function M.of(impact, o)
  if impact[o] then return impact[o] end
  local best, len = nil, -1
  for k, c in pairs(impact) do
    local pre = k:match("^(.*)%*$")
    if pre and #pre > len and o:sub(1, #pre) == pre then best, len = c, #pre end
  end
  return best
end

-- nil, or what is wrong with v as an impact table; is_control(o) says
-- whether o is a failed positive control (never a class).
function M.problem(v, is_control)
  if type(v) ~= "table" or next(v) == nil then
    return "scenario is missing 'impact' (failing outcome -> class, docs/SCENARIOS.md)"
  end
  for k, c in pairs(v) do
    if type(k) ~= "string" or k == "" then
      return "impact: keys must be failing outcomes (a prefix ends in '*'), got " .. tostring(k)
    end
    if is_control((k:gsub("%*$", ""))) then
      return "impact." .. k .. ": a failed control is inconclusive, never a class (declare 'control')"
    end
    if not M.RANK[c] then
      return string.format("impact.%s: unknown class '%s' (one of %s)", k, tostring(c),
        table.concat(M.CLASSES, ", "))
    end
  end
end

-- The distinct classes of impact table v, in report order.
function M.classes_of(v)
  local seen, out = {}, {}
  for _, c in pairs(v) do seen[c] = true end
  for _, c in ipairs(M.CLASSES) do if seen[c] then out[#out + 1] = c end end
  return out
end

-- Impact table v as one line, class by class in report order, each with
-- its keys in byte order: "escape: escaped; reporting: errno_*, unreported"
-- (`sandproof list --impact`; docs/CONTRACT.md's reviewed table).
function M.text(v)
  local out = {}
  for _, c in ipairs(M.classes_of(v)) do
    local keys = {}
    for k, kc in pairs(v) do if kc == c then keys[#keys + 1] = k end end
    table.sort(keys)
    out[#out + 1] = c .. ": " .. table.concat(keys, ", ")
  end
  return table.concat(out, "; ")
end

-- Sorts a list of { class = ... } in report order, keeping the order of
-- equals (their n field, set here).
function M.sort(list)
  for i, x in ipairs(list) do x.n = i end
  table.sort(list, function(a, b)
    return M.RANK[a.class] < M.RANK[b.class] or (a.class == b.class and a.n < b.n)
  end)
  return list
end

return M
