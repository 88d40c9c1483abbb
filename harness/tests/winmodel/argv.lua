-- argv.lua - for the winmodel adapters: spec with its command's arguments
-- after the first that name an absolute path (they begin with / or \)
-- replaced by f(argument); spec itself is left as it was.
return function(spec, f)
  local s = {}
  for k, v in pairs(spec) do s[k] = v end
  s.command = {}
  for i, a in ipairs(spec.command) do
    s.command[i] = (i > 1 and a:find("^[/\\]")) and f(a) or a
  end
  return s
end
