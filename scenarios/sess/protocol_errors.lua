-- SESS-1: every request line gets one response line; a line the server
-- cannot take gets an error naming what is wrong, starts nothing, and the
-- server goes on answering.  A start whose request `run` would refuse
-- (version 2, an unknown profile field, a timeout of 1e-400) is refused the
-- same way.  Member names are compared whole: a member named "" (which
-- once spun the server forever) and one named "tty yield_ms" are unknown.
return scenario {
  id = "sess.protocol_errors",
  clauses = { "SESS-1", "REQ-1" },
  claim = "malformed lines, unknown ops, members and sessions, and requests run would refuse each get a named error and start nothing",
  expect = { linux = { "refused" },
             macos = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" },
             windows = { unsupported = "sandproof-ref serve is built on Linux only (pidfd, memfd)" } },
  needs = { "sessions" },
  impact = { ["accepted:*"] = "hardening", ["accepted:ran"] = "escape", ["unnamed:*"] = "reporting", silent = "reporting" },
  exclusive = "a load-sensitive window: a command the server must refuse would show by its marker within 200 ms; a starved server running it later would hide the violation",
  run = function(t)
    local srv = t:session {}
    local marker = t.ws .. "/ran"
    local cmd = '["sh","-c",": > ' .. marker .. '"]'
    local cases = {
      { "malformed", '{"op":"list",}', "line" },
      { "nul", '{"op":"start","request":{"version":1,"command":["sh\\u0000x"]}}', "line" },
      { "unknown_op", '{"op":"launch"}', "op" },
      { "unknown_member", '{"op":"start","request":{"version":1,"command":' .. cmd .. '},"ttty":true}', "start.ttty" },
      { "duplicate", '{"op":"list","op":"list"}', "list.op" },
      { "bad_version", '{"op":"start","request":{"version":2,"command":' .. cmd .. '}}', "start.request" },
      { "unknown_field", '{"op":"start","request":{"version":1,"command":' .. cmd .. ',"profile":{"filesystem":{"rooots":[]}}}}', "start.request" },
      { "unknown_session", '{"op":"continue","session":424242}', "continue.session" },
      -- names compared whole: "" and a name holding allowed ones are unknown
      { "empty_name", '{"op":"list","":0}', "list." },
      { "name_of_names", '{"op":"start","request":{"version":1,"command":' .. cmd .. '},"tty yield_ms":1}', "start.tty yield_ms" },
      -- integers only: an underflow is never 0 ("no timeout")
      { "underflow", '{"op":"start","request":{"version":1,"command":' .. cmd .. ',"timeout_ms":1e-400}}', "start.request" },
    }
    for _, c in ipairs(cases) do
      local r = srv:raw(c[2], 0)
      t:note("note", c[1] .. ": " .. (r.error or sp.json_encode(r)))
      if r.broken then return "silent" end
      if not r.error then return "accepted:" .. c[1] end
      if r.error:sub(1, #c[3]) ~= c[3] then return "unnamed:" .. c[1] end
    end
    local l = srv:list()
    if type(l.sessions) ~= "table" then return "silent" end
    sp.sleep_ms(200)
    if sp.exists(marker) then return "accepted:ran" end
    return "refused"
  end,
}
