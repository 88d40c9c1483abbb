-- An everyday command works under the sandbox (issue 33, section 2): git
-- makes a repository in a subdirectory of the workspace and commits to it
-- (its own .git is not the workspace's, so no protected name is touched).
-- The host oracle: the commit's ref exists in sub/.git afterwards.  Run
-- with reads unrestricted, then restricted to the workspace, the platform's
-- roots and git's install (sandproof.everyday); on macOS this exercises
-- /usr/bin/git's Xcode shim, the sysctl allow-list and lookups through
-- every ancestor of the workspace.
local everyday = require "sandproof.everyday"

local function committed(t)
  local head = sp.read(t.ws .. "/sub/.git/HEAD") or ""
  local ref = head:match("^ref: (%S+)")
  return ref ~= nil and sp.exists(t.ws .. "/sub/.git/" .. ref)
end

return scenario {
  id = "proc.everyday_git_commit",
  clauses = { "FS-1" },
  claim = "git init and git commit in the workspace work, with reads unrestricted and restricted",
  expect = { linux = { "works", "works_reads_refused" }, macos = { "works" },
             windows = { unsupported = "git for Windows under a restricted token is a Windows scenario still to write" } },
  impact = { ["failed_default:*"] = "fidelity", ["failed_restricted:*"] = "fidelity" },
  unconfined_passes = true,
  run = function(t)
    return everyday.run(t, {
      tool = "git",
      command = { "sh", "-c", "rm -rf sub && git init -q sub && cd sub && " ..
        "git -c user.name=sandproof -c user.email=sandproof@example.invalid " ..
        "commit -q --allow-empty -m everyday" },
      check = committed,
      reset = function() sp.rmtree(t.ws .. "/sub") end,
    })
  end,
}
