-- The environment is exactly the request's env plus SANDPROOF_SANDBOXED=1
-- and SANDPROOF_NETWORK: `env` runs as the command itself (no shell to add
-- PWD), and its output must list exactly those variables.  The runner's
-- own environment (HOME, the harness's SANDPROOF_* settings, ...) must not
-- leak in.  The request's own SANDPROOF_SANDBOXED and SANDPROOF_NETWORK
-- (set to lie: 0 and allow) must not survive beside the runner's: each
-- name appears once, with the runner's value.  The request's odd value
-- (spaces, '=', UTF-8) is the positive control: it must arrive unchanged.
return scenario {
  id = "proc.env_exact",
  clauses = { "PROC-2", "PROC-11" },
  claim = "the command's environment is exactly the request's env plus the two SANDPROOF_ variables",
  expect = { linux = { "exact" }, macos = { "exact" }, windows = { unsupported = "the oracle is env(1) listing the whole environment, which native Windows lacks; the probe's env op reads one name, and a leak is a name nobody asked for" } },
  impact = { leaked = "fidelity", ["duplicated:*"] = "fidelity", ["missing:*"] = "fidelity", ["run_failed:*"] = "fidelity" },
  control = "proc.exit_code_exact",
  run = function(t)
    local env = { PATH = "/usr/local/bin:/usr/bin:/bin", SP_ODD = "a b=c ✓", SP_EMPTY = "",
                  SANDPROOF_SANDBOXED = "0", SANDPROOF_NETWORK = "allow" }
    local r = t:sandbox { env = env, command = { "env" } }
    local want = {}
    for k, v in pairs(env) do want[k] = v end
    want.SANDPROOF_SANDBOXED, want.SANDPROOF_NETWORK = "1", "deny"
    local got, seen, extra, lines = {}, {}, {}, {}
    for l in (r.stdout or ""):gmatch("[^\n]+") do
      local k, v = l:match("^([^=]+)=(.*)$")
      if k then got[k] = v; seen[k] = (seen[k] or 0) + 1; lines[#lines + 1] = k end
    end
    t:note("note", "kind " .. tostring(r.outcome.kind) .. "; names: " .. table.concat(lines, " "))
    if r.outcome.kind ~= "success" then return "run_failed:" .. tostring(r.outcome.kind) end
    if got.SP_ODD ~= env.SP_ODD or got.SP_EMPTY ~= "" then return "control_failed" end
    -- macOS has no private /tmp: the runner names the run's private temp
    -- directory in TMPDIR, TMP and TEMP instead (platforms/macos/README.md);
    -- there those three, one absolute path, are expected, nothing else
    if t.os == "macos" or t.os == "posix-sim" then
      local d = got.TMPDIR
      if not (d and d:sub(1, 1) == "/" and d ~= "/tmp" and d ~= "/private/tmp" and
              got.TMP == d and got.TEMP == d) then
        return "missing:TMPDIR"
      end
      want.TMPDIR, want.TMP, want.TEMP = d, d, d
    end
    for k in pairs(got) do
      if want[k] == nil then extra[#extra + 1] = k end
    end
    if #extra > 0 then
      table.sort(extra)
      t:note("note", "leaked: " .. table.concat(extra, " "))
      return "leaked"
    end
    for k, v in pairs(want) do
      if (seen[k] or 0) > 1 then return "duplicated:" .. k end
      if got[k] ~= v then return "missing:" .. k end
    end
    return "exact"
  end,
}
