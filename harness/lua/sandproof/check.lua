-- sandproof.check - strict option tables for the Lua-level API (t:sandbox,
-- t:hold, t:fault, lib helpers, ...), the same rule as the sp module's:
-- an unknown key or a wrong type is misuse and raises, naming it, at the
-- caller's line (`t:sandbox: unknown option "timout_ms"`).
local M = {}

-- A set from a list of names.
function M.set(list)
  local s = {}
  for _, k in ipairs(list) do s[k] = true end
  return s
end

-- Raise unless every key of opts is in known (a set); level as for error()
-- counted from the caller of keys (default: the caller's caller, the
-- scenario line that called the API function).
function M.keys(opts, known, where, level)
  if opts == nil then return end
  if type(opts) ~= "table" then
    error(string.format("%s: options must be a table (got %s)", where, type(opts)), (level or 2) + 1)
  end
  for k in pairs(opts) do
    if type(k) ~= "string" then
      error(string.format("%s: option keys are strings (got a %s key)", where, type(k)), (level or 2) + 1)
    end
    if not known[k] then
      error(string.format('%s: unknown option "%s"', where, k), (level or 2) + 1)
    end
  end
end

-- Raise unless opts[key] is nil or of one of the types in `types`
-- ("string", "number", "integer", "boolean", "table", "function"; a list
-- or one name).
function M.type(opts, key, types, where, level)
  local v = opts[key]
  if v == nil then return end
  if type(types) == "string" then types = { types } end
  for _, ty in ipairs(types) do
    if ty == "integer" and math.type(v) == "integer" then return end
    if type(v) == ty then return end
  end
  error(string.format('%s: option "%s" must be %s (got %s)', where, key,
    table.concat(types, " or "), math.type(v) or type(v)), (level or 2) + 1)
end

-- A shallow copy of a table (nil stays nil), its metatable kept.
function M.copy(t)
  if t == nil then return nil end
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return setmetatable(c, getmetatable(t))
end

return M
