-- Protected names are relative to each write root (CONTRACT.md, META: "Every
-- write root has protected_metadata_names"), not to every repository found
-- beneath it.  A nested repository sub/.git inside the only write root is
-- therefore ordinary workspace content: its hooks and config can be
-- written, and no denial is reported.  To protect a nested repository, a
-- policy lists it as a write root of its own (meta.nested_write_root_protected).
-- A capability claim: the unconfined control can do this too.
return scenario {
  id = "meta.nested_repo_unprotected",
  clauses = { "META-1", "META-3" },
  claim = "a nested repository's .git/hooks and .git/config are not protected unless it is a write root itself",
  expect = { linux = { "writable" }, macos = { "writable" }, windows = { "writable" } },
  impact = { protected = "fidelity", ["reported:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    local sub = t.ws .. "/sub"
    assert(sp.mkdir(sub))
    assert(sp.mkdir(sub .. "/.git"))
    assert(sp.mkdir(sub .. "/.git/hooks"))
    assert(sp.write(sub .. "/.git/config", "[core]\n\tbare = false\n"))
    local r = t:ran(t:sandbox {
      probe = {
        { "write", sub .. "/.git/hooks/pre-commit", "#!/bin/sh\nexit 0\n" },
        { "append", sub .. "/.git/config", "[user]\n\tname = x\n" },
        { "mkdir", sub .. "/.agents" },
      },
    })
    local o = r.outcome
    t:note("note", string.format("kind=%s denials=%s", tostring(o.kind), sp.json_encode(o.denials or {})))
    if not (sp.exists(sub .. "/.git/hooks/pre-commit") and
            sp.read(sub .. "/.git/config") == "[core]\n\tbare = false\n[user]\n\tname = x\n" and
            sp.exists(sub .. "/.agents")) then
      return "protected"
    end
    if o.kind ~= "success" or #(o.denials or {}) > 0 then return "reported:" .. tostring(o.kind) end
    return "writable"
  end,
}
