#!/bin/sh
# test_explore.sh SANDPROOF - `sandproof explore` (docs/EXPLORE.md):
#   - bad input exits 2 naming what is wrong, nothing run or written;
#   - the generator is deterministic (pinned outputs for a seed) and covers
#     its grammar; ddmin finds 1-minimal subsets (explore/unit_gen.lua, run
#     as a scenario through the harness's own Lua); a universe restored in
#     place equals a fresh one (explore/unit_universe.lua);
#   - the oracle sees each hand-written attack against none (an escape) and
#     none of them against ref (confined), each program a scenario replayed
#     by `sandproof run`;
#   - explore against none finds violations (exit 1), shrinks them, and
#     writes scenario files that replay as they are: fail against none,
#     pass against ref; the same seed finds the same files;
#   - explore against ref finds none (exit 0) and records its run;
#   - batches: the same violations as programs run alone (daemons a
#     runner leaves, counted or hidden, among them); one violating program
#     among clean ones is named exactly (explore/unit_batch.lua); launches
#     stopped by ref are handled; a violation only a batch shows is
#     recorded as such.
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh" # sc_wait, sc_reap (the counters are this file's own, below)
tmp=$(mktemp -d /tmp/sandproof-explore.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0
check() { n=$((n + 1)); if eval "$1"; then pass=$((pass + 1)); echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi; }

# ---- usage -------------------------------------------------------------------
usage() { # pattern description args...
	pat=$1 what=$2
	shift 2
	"$sp" explore "$@" --out "$tmp/u" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check '[ $st -eq 2 ] && grep -q -- "$pat" "$tmp/err" && [ ! -e "$tmp/u" ]' "usage: $what exits 2, nothing written (exit $st: $(head -c 200 "$tmp/err"))"
}
usage "--runner is required" "no runner" --budget 1
usage "unknown runner 'nosuch'" "an unknown runner" --runner nosuch
usage "bad number: 0" "a zero budget" --runner none --budget 0
usage "bad number: 1x" "a malformed time" --runner none --time 1x
usage "bad number: -3" "a negative seed" --runner none --seed -3
usage "unexpected argument extra" "an extra argument" --runner none extra
usage "bad number: 0" "a zero batch" --runner none --batch 0
usage "bad number: 65" "a batch over 64" --runner none --batch 65
usage "bad number: 17" "more than 16 jobs" --runner none --jobs 17
usage "runner seatbelt_naive is not available here" "a runner not on this machine" --runner seatbelt_naive
"$sp" explore --runner none --budget 1 --out /proc/nope >"$tmp/out" 2>"$tmp/err"
st=$?
check '[ $st -eq 2 ] && grep -q -- "--out /proc/nope" "$tmp/err"' "an unusable --out exits 2 naming it (exit $st)"

# ---- generator and ddmin -------------------------------------------------------
mkdir -p "$tmp/unit/fs"
cp "$here/explore/unit_gen.lua" "$here/explore/unit_universe.lua" "$tmp/unit/fs/"
SANDPROOF_SCENARIOS="$tmp/unit" "$sp" run --runner none --out "$tmp/unit-out" >"$tmp/out" 2>&1
check 'grep -q "^pass .*fs.explore_unit .*observed=ok" "$tmp/out"' "generator determinism, grammar coverage, ddmin: $(grep explore_unit "$tmp/out" | head -c 400)"
# a universe restored in place (a worker keeps its universes for the run)
# is exactly a fresh one, whatever the program before did to it
check 'grep -q "^pass .*fs.explore_universe .*observed=ok" "$tmp/out"' "a wrecked universe restored in place equals a fresh one: $(grep -A3 explore_universe "$tmp/out" | head -c 600)"

# oracle_sc DIR ID CLAUSES CLAIM LINUX_EXPECTED PROGRAM: DIR/fs/ID.lua, the
# scenario fs.ID whose run is the oracle judging one program (Lua table
# text); CLAUSES and LINUX_EXPECTED are Lua list items ('"FS-1"')
oracle_sc() {
	mkdir -p "$1/fs"
	cat >"$1/fs/$2.lua" <<EOT
local oracle = require "sandproof.explore.oracle"
return scenario {
  id = "fs.$2", clauses = { $3 }, claim = "$4",
  expect = { linux = { $5 }, macos = { unsupported = "explore is linux only so far" },
             windows = { unsupported = "explore is linux only so far" } },
  impact = { ["escape*"] = "escape", ["hardening*"] = "hardening", ["reporting*"] = "reporting",
             ["residue*"] = "residue" },
  control = "fs.workspace_writable",
  run = function(t) return (oracle.run(t, $6)) end,
}
EOT
}

# ---- the oracle: hand-written attacks ---------------------------------------------
i=0
attack() { # program (Lua table text)
	i=$((i + 1))
	oracle_sc "$tmp/atk" "attack_$i" '"FS-1"' "attack $i is confined" '"confined"' "$1"
}
attack '{ seed = 1, policy = {}, ops = { { "write", "out/victim", "x" } } }'
attack '{ seed = 2, policy = {}, ops = { { "write", "vis/new", "x" } } }'
attack '{ seed = 3, policy = {}, ops = { { "write", "hooks/pre-commit", "#!/bin/sh\n" } } }'
attack '{ seed = 4, policy = {}, ops = { { "append", "config", "x" } } }'
attack '{ seed = 5, policy = {}, ops = { { "mkdir", "agents" } } }'
attack '{ seed = 6, policy = { { kind = "read_only_subpath", name = "ro" } }, ops = { { "write", "ro/new", "x" } } }'
attack '{ seed = 7, policy = { { kind = "deny_write", name = "ws/d/f" } }, ops = { { "write", "ws/d/f", "x" } } }'
attack '{ seed = 8, policy = { { kind = "deny_read", name = "secret" } }, ops = { { "read", "secret" } } }'
attack '{ seed = 9, policy = {}, ops = { { "read", "out/secret" } } }'
attack '{ seed = 10, policy = {}, ops = { { "link", "out/victim", "ws/b" }, { "append", "ws/b", "x" } } }'
attack '{ seed = 11, policy = {}, ops = { { "rename", "git", "ws/b" } } }'
attack '{ seed = 12, policy = {}, ops = { { "symlink", "out", "ws/b" }, { "rename_exchange", "ws/b", "hooks" } } }'
attack '{ seed = 13, policy = {}, ops = { { "connect", "tcp", "127.0.0.1", "$tcp" } } }'
attack '{ seed = 14, policy = {}, ops = { { "connect", "udp", "127.0.0.1", "$udp" } } }'
attack '{ seed = 15, policy = { { kind = "read_only_subpath", name = "ro" } }, ops = { { "rename", "ro", "ws/b" } } }'
attack '{ seed = 16, policy = {}, ops = { { "symlink", "out", "agents" } } }'
attack '{ seed = 17, policy = {}, ops = { { "rename", "ws/d", "zero" } } }'
attack '{ seed = 18, policy = {}, ops = { { "chmod", "vis/victim", "777" } } }'
attack '{ seed = 19, policy = {}, ops = { { "open", "config", "wronly,trunc" } } }'
attack '{ seed = 20, policy = {}, ops = { { "open", "hooks/pre-commit", "wronly,creat,excl" } } }'
attack '{ seed = 21, policy = {}, ops = { { "tmpfile_link", "out", "out/new", "x" } } }'
attack '{ seed = 22, policy = { { kind = "read_only_subpath", name = "ro" } }, ops = { { "chmod", "ro/f", "4755" } } }'
SANDPROOF_SCENARIOS="$tmp/atk" "$sp" run --runner none,ref --out "$tmp/atk-out" >"$tmp/atk.log" 2>&1
nf=$(grep -c "^fail .*fs.attack_.* none .*impact: escape" "$tmp/atk.log")
np=$(grep -c "^pass .*fs.attack_.* ref .*observed=confined" "$tmp/atk.log")
check '[ "$nf" -eq $i ]' "the oracle sees all $i attacks against none as escapes (saw $nf): $(grep ' none ' "$tmp/atk.log" | grep -v '^fail' | head -c 600)"
check '[ "$np" -eq $i ]' "and none of them against ref (confined: $np): $(grep ' ref ' "$tmp/atk.log" | grep -v '^pass' | head -c 600)"

# ---- the oracle's honesty check: ref with its denials removed ------------------------
# ref_mute: ref's outcome with every denial dropped; a protected name it
# created and ref undid (META-3) is then a reporting violation
mkdir -p "$tmp/h/runners"
ln -s "$here/../lua" "$tmp/h/lua"
cp "$here/../runners/ref.lua" "$tmp/h/runners/ref.lua"
cat >"$tmp/h/runners/ref_mute.lua" <<'EOT'
local ref = require "ref"
local M = setmetatable({ name = "ref_mute" }, { __index = ref })
function M.sandbox(t, spec)
  local r = ref.sandbox(t, spec)
  if r.outcome then r.outcome.denials = {} end
  return r
end
return M
EOT
oracle_sc "$tmp/hon" honesty '"META-3"' "a blocked creation is reported" '"confined"' \
	'{ seed = 1, policy = {}, ops = { { "mkdir", "agents" } } }'
# The oracle sees the creation by the probe's "ok" for the mkdir; ref stops
# the command as the name appears, and the probe's line is sometimes lost
# with it (more often as root, whose fanotify monitor is faster): then
# nothing shows the creation, and ref_mute is honestly "confined".  Ten
# runs: ref confined in all, ref_mute a reporting violation in at least one,
# and never anything else.
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/hon" "$sp" run --runner ref,ref_mute --repeat 10 --out "$tmp/hon-out" >"$tmp/hon.log" 2>&1
nref=$(grep -c "^pass .*fs.honesty .* ref .*observed=confined" "$tmp/hon.log")
nmute=$(grep -c "^fail .*fs.honesty .* ref_mute .*observed=reporting: mkdir of agents undone without a protected_create denial" "$tmp/hon.log")
nquiet=$(grep -c "^pass .*fs.honesty .* ref_mute .*observed=confined" "$tmp/hon.log")
check '[ "$nref" -eq 10 ] && [ "$nmute" -ge 1 ] && [ $((nmute + nquiet)) -eq 10 ]' "an unreported blocked creation is a reporting violation: ref confined $nref of 10, ref_mute flagged $nmute (no creation seen: $nquiet): $(grep -E '^[a-z]+ +fs.honesty ' "$tmp/hon.log" | awk '{print $1, $3, $4}' | sort | uniq -c | tr '\n' ';' | head -c 400)"

# syscall denials (PRIV-3, OUT-5): an EPERM refusal with no denial of its
# call (ref_mute), and denials of what no op did (ref_phantom adds an
# io_uring_setup denial and a protected_create of the workspace's .agents)
cat >"$tmp/h/runners/ref_phantom.lua" <<'EOT'
local ref = require "ref"
local M = setmetatable({ name = "ref_phantom" }, { __index = ref })
function M.sandbox(t, spec)
  local r = ref.sandbox(t, spec)
  if r.outcome and type(r.outcome.denials) == "table" then
    table.insert(r.outcome.denials, { kind = "syscall", name = "io_uring_setup" })
    table.insert(r.outcome.denials, { kind = "protected_create", path = spec.cwd .. "/.agents" })
  end
  return r
end
return M
EOT
hon() { # id program
	oracle_sc "$tmp/hon2" "$1" '"PRIV-3", "OUT-5"' "denials are what happened" '"confined"' "$2"
}
hon hon_uring '{ seed = 1, policy = {}, ops = { { "io_uring" } } }'
hon hon_write '{ seed = 2, policy = {}, ops = { { "write", "ws/a", "x" } } }'
hon hon_tiocsti '{ seed = 3, policy = {}, ops = { { "tiocsti_pty" } } }'
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/hon2" "$sp" run --runner ref,ref_mute,ref_phantom --out "$tmp/hon2-out" >"$tmp/hon2.log" 2>&1
check '[ "$(grep -c "^pass .*fs.hon_.* ref .*observed=confined" "$tmp/hon2.log")" = 3 ] && grep -q "^fail .*fs.hon_uring .* ref_mute .*observed=reporting: io_uring refused with EPERM without a syscall denial of io_uring_setup" "$tmp/hon2.log" && grep -q "^fail .*fs.hon_tiocsti .* ref_mute .*observed=reporting: tiocsti_pty refused with EPERM without a syscall denial of ioctl" "$tmp/hon2.log" && grep -q "^pass .*fs.hon_write .* ref_mute .*observed=confined" "$tmp/hon2.log"' "an EPERM refusal of a PRIV-2 call with no denial of it is a reporting violation: $(grep "fs.hon_" "$tmp/hon2.log" | head -c 500)"
check 'grep -q "^fail .*fs.hon_write .* ref_phantom .*observed=reporting: a syscall denial of io_uring_setup reported that no op of the launch makes" "$tmp/hon2.log" && grep -q "^fail .*fs.hon_uring .* ref_phantom .*observed=reporting: a protected_create denial of agents reported that no op names" "$tmp/hon2.log"' "denials of what no op did are reporting violations: $(grep "fs.hon_.* ref_phantom" "$tmp/hon2.log" | head -c 500)"

# ---- a launch of several programs names exactly the one that violated ----
# seven clean programs and one violating (an escape, a hardening, an
# unreported refusal), the violating one first, fourth or last; against
# none, ref_mute and ref (explore/unit_batch.lua)
mkdir -p "$tmp/ub/fs"
cp "$here/explore/unit_batch.lua" "$tmp/ub/fs/"
cp "$here/../runners/none.lua" "$tmp/h/runners/"
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/ub" "$sp" run --runner none,ref_mute,ref --out "$tmp/ub-out" >"$tmp/ub.log" 2>&1
check '[ "$(grep -c "^pass .*fs.explore_batch .*observed=ok" "$tmp/ub.log")" = 3 ]' "a launch of eight programs names exactly the violating one, wherever it sits (none, ref_mute), and none against ref: $(grep explore_batch "$tmp/ub.log" | grep -v "^pass" | head -c 600)"

# ---- a host-side hold: the workspace exchanged with a symlink to the outside ----
# at the first path call of the run; under none (no pinning) the writes
# follow the symlink: an escape; ref pins the workspace (SWAP-1..3): no
# escape (it fails closed or writes into the pinned directory)
oracle_sc "$tmp/hd" held '"SWAP-3"' "a workspace exchanged at the first path call redirects no write" \
	'"confined", "failed_closed"' '{ seed = 1, policy = {}, ops = { { "write", "ws/a", "x" } }, hold = { at = 1 } }'
SANDPROOF_SCENARIOS="$tmp/hd" "$sp" run --runner none,ref --out "$tmp/hd-out" >"$tmp/hd.log" 2>&1
check 'grep -q "^fail .*fs.held .* none .*observed=escape: changed out/a, out/ctl" "$tmp/hd.log" && grep -q "^pass .*fs.held .* ref .*observed=\(confined\|failed_closed\)" "$tmp/hd.log"' "a held exchange of the workspace: an escape against none, none against ref: $(grep fs.held "$tmp/hd.log" | head -c 400)"

# ---- NET-5 and residue: judged from the probe's result and the host's process table ----
# sockets of forbidden families and io_uring (the probe's own result inside
# the sandbox), a background process (the harness's count of processes
# alive after the runner returned); raw and packet sockets need root even
# unconfined (CAP_NET_RAW), so only root tries them
mkdir -p "$tmp/nr/fs"
j=0
nr_attack() { # program (Lua table text)
	j=$((j + 1))
	oracle_sc "$tmp/nr" "nr_$j" '"NET-5", "PROC-5"' "attack $j is confined" '"confined"' "$1"
}
nr_attack '{ seed = 1, policy = {}, ops = { { "socket", "vsock", "stream" } } }'
nr_attack '{ seed = 2, policy = {}, ops = { { "socket", "netlink", "raw", "9" } } }'
nr_attack '{ seed = 3, policy = { { kind = "network", name = "allow" } }, ops = { { "io_uring" } } }'
nr_attack '{ seed = 4, policy = {}, ops = { { "spawn_daemon", "ws/b" } } }'
nr_attack '{ seed = 8, policy = {}, ops = { { "spawn_daemon", "ws/b" }, { "ptrace", "@ws/b" } } }'
nr_attack '{ seed = 9, policy = {}, ops = { { "spawn_daemon", "ws/d/g" }, { "process_vm_readv", "@ws/d/g" } } }'
nr_attack '{ seed = 10, policy = {}, ops = { { "tiocsti_pty" } } }'
if [ "$(id -u)" -eq 0 ]; then
	nr_attack '{ seed = 5, policy = {}, ops = { { "socket", "packet", "dgram" } } }'
	nr_attack '{ seed = 6, policy = {}, ops = { { "socket", "raw" } } }'
fi
# permitted families, and lab hits under network=allow (NET-3): no violation
oracle_sc "$tmp/nr" nr_permitted '"NET-3", "NET-5"' "permitted sockets and a lab reached under allow are no violation" \
	'"confined"' '{ seed = 7, policy = { { kind = "network", name = "allow" } },
    ops = { { "socket", "inet", "stream" }, { "socket", "inet6", "dgram" }, { "socket", "unix", "stream" },
            { "socket", "netlink", "raw", "0" }, { "connect", "tcp", "127.0.0.1", "$tcp" } } }'
# a chmod of directories the workspace owns (.git itself, ws/d above a
# deny_write file) is no violation, also seen by an observer that is not
# root (who could not look below a mode-000 directory)
oracle_sc "$tmp/nr" nr_chmod_own '"META-1", "FS-2"' "a chmod of the workspace's own directories is no violation" \
	'"confined"' '{ seed = 11, policy = { { kind = "deny_write", name = "ws/d/f" } },
    ops = { { "chmod", "git", "000" }, { "chmod", "ws/d", "000" } } }'
SANDPROOF_SCENARIOS="$tmp/nr" "$sp" run --runner none,ref --out "$tmp/nr-out" >"$tmp/nr.log" 2>&1
nf=$(grep -c "^fail .*fs.nr_[0-9]* .* none .*impact: \(hardening\|residue\)" "$tmp/nr.log")
np=$(grep -c "^pass .*fs.nr_[0-9]* .* ref .*observed=confined" "$tmp/nr.log")
# (each but the daemon hardening: nothing beyond the grant, the target the
# run's own; docs/CONTRACT.md "Impact classes")
check '[ "$nf" -eq $j ] && grep -q "fs.nr_1 .* none .*observed=hardening: opened a vsock socket  impact: hardening" "$tmp/nr.log" && grep -q "fs.nr_2 .* none .*observed=hardening: opened a netlink audit socket  impact: hardening" "$tmp/nr.log" && grep -q "fs.nr_3 .* none .*observed=hardening: set up an io_uring instance  impact: hardening" "$tmp/nr.log" && grep -q "fs.nr_4 .* none .*observed=residue: a process of the run alive after the runner returned" "$tmp/nr.log" && grep -q "fs.nr_5 .* none .*observed=hardening: attached to a process of the run with ptrace" "$tmp/nr.log" && grep -q "fs.nr_6 .* none .*observed=hardening: read a process of the run.s memory with process_vm_readv" "$tmp/nr.log" && grep -q "fs.nr_7 .* none .*observed=hardening: pushed input into a terminal of its own with TIOCSTI" "$tmp/nr.log" && ! grep -q "fs.nr_[0-9]* .* none .*impact: escape" "$tmp/nr.log"' "the oracle sees all $j socket, io_uring, daemon, tracing and TIOCSTI attacks against none, none of them an escape (saw $nf): $(grep 'fs.nr_[0-9]* .* none' "$tmp/nr.log" | head -c 600)"
check '[ "$np" -eq $j ]' "and none of them against ref (confined: $np): $(grep 'fs.nr_[0-9]* .* ref' "$tmp/nr.log" | grep -v '^pass' | head -c 600)"
reached=$(sqlite3 "$tmp/nr-out/linux.sqlite" "select count(*) from evidence e join result r on r.id = e.result_id where r.scenario_id = 'fs.nr_permitted' and e.body like '%connect ok%'" 2>&1)
check 'grep -q "^pass .*fs.nr_chmod_own .* none .*observed=confined" "$tmp/nr.log" && grep -q "^pass .*fs.nr_chmod_own .* ref .*observed=confined" "$tmp/nr.log"' "a chmod of the workspace's own .git and ws/d is no violation: $(grep fs.nr_chmod_own "$tmp/nr.log" | head -c 300)"
check 'grep -q "^pass .*fs.nr_permitted .* none .*observed=confined" "$tmp/nr.log" && grep -q "^pass .*fs.nr_permitted .* ref .*observed=confined" "$tmp/nr.log" && [ "$reached" = 2 ]' "permitted sockets, and the lab reached under network=allow, are no violation (connects that reached: $reached): $(grep fs.nr_permitted "$tmp/nr.log" | head -c 300)"

# a daemon the adapter leaves alive (kill_leftovers off): residue, found by
# its pidfile path in its command line and killed by pid by the oracle; the
# scenario looks for it right after the oracle (the scenario's own process
# is swept when it ends, so only a look from inside shows the kill)
mkdir -p "$tmp/k/runners" "$tmp/kd/fs"
ln -s "$here/../lua" "$tmp/k/lua"
cp "$here/../runners/none.lua" "$here/../runners/ref.lua" "$tmp/k/runners/"
cat >"$tmp/k/runners/none_keep.lua" <<'EOT'
local none = require "none"
local M = setmetatable({ name = "none_keep" }, { __index = none })
function M.sandbox(t, spec)
  if not t._ctx.lab then t:lab() end
  local r = t:spawn { argv = spec.command, cwd = spec.cwd, env = { "PATH=/usr/bin:/bin" },
                      timeout_ms = 20000, private_mounts = true, kill_leftovers = false }
  return { outcome = { kind = r.code == 0 and "success" or "application_failure",
                       exit = { code = r.code }, stdout = r.stdout, stderr = r.stderr, denials = {} },
           harness_killed = r.leftovers }
end
return M
EOT
# none_ctl runs only each launch's first probe op (a program's control
# write): only a held exchange of the workspace can make it escape
cat >"$tmp/k/runners/none_ctl.lua" <<'EOT'
local none = require "none"
local M = setmetatable({ name = "none_ctl" }, { __index = none })
function M.sandbox(t, spec)
  local argv = {}
  for _, a in ipairs(spec.command) do
    if a == "--" then break end
    argv[#argv + 1] = a
  end
  local s = {}
  for k, v in pairs(spec) do s[k] = v end
  s.command = argv
  return none.sandbox(t, s)
end
return M
EOT
cat >"$tmp/kd/fs/kd.lua" <<'EOT'
local oracle = require "sandproof.explore.oracle"
return scenario {
  id = "fs.nr_kept", clauses = { "PROC-5" }, claim = "a daemon left alive is residue and killed",
  expect = { linux = { "confined" }, macos = { unsupported = "explore is linux only so far" },
             windows = { unsupported = "explore is linux only so far" } },
  impact = { ["residue*"] = "residue", still_alive = "residue" }, control = "fs.workspace_writable",
  run = function(t)
    local o = oracle.run(t, { seed = 4, policy = {}, ops = { { "spawn_daemon", "ws/b" } } })
    sp.sleep_ms(200)
    local left = sp.census { marker = "spawn_daemon " .. t.ws .. "/b" }
    if #left.processes > 0 then return "still_alive" end
    return o
  end,
}
EOT
env SANDPROOF_HARNESS_DIR="$tmp/k" SANDPROOF_SCENARIOS="$tmp/kd" "$sp" run --runner none_keep --out "$tmp/kd-out" >"$tmp/kd.log" 2>&1
ev=$(sqlite3 "$tmp/kd-out/linux.sqlite" "select count(*) from evidence where body like 'alive after the run and the harness''s sweep: pid %'" 2>&1)
check 'grep -q "^fail .*fs.nr_kept .* none_keep .*observed=residue: a process of the run alive after the runner returned" "$tmp/kd.log" && [ "$ev" = 1 ]' "a daemon left alive by the adapter is residue, found by the census (evidence: $ev) and killed by pid by the oracle: $(grep fs.nr_kept "$tmp/kd.log" | head -c 300)"
# a held finding end to end: found, shrunk to its hold alone, written with
# it, replayed: an escape against none_ctl, none against ref
env SANDPROOF_HARNESS_DIR="$tmp/k" "$sp" explore --runner none_ctl --budget 120 --seed 2 --batch 1 --out "$tmp/hx" >"$tmp/hx.log" 2>&1 && st=0 || st=$?
hf=$(grep -l "ops = {  }, hold = { at = " "$tmp"/hx/found/*.lua 2>/dev/null | head -1)
check '[ $st -eq 1 ] && [ -n "$hf" ] && grep -q "^holds: [1-9][0-9]* programs held" "$tmp/hx.log"' "a held exchange found against none_ctl and shrunk to the hold alone (exit $st, file ${hf:-none}): $(grep -v "^  " "$tmp/hx.log" | tail -3 | head -c 500)"
mkdir -p "$tmp/hxr/fs" && [ -n "$hf" ] && cp "$hf" "$tmp/hxr/fs/"
env SANDPROOF_HARNESS_DIR="$tmp/k" SANDPROOF_SCENARIOS="$tmp/hxr" "$sp" run --runner none_ctl,ref --out "$tmp/hxr-out" >"$tmp/hxr.log" 2>&1
check 'grep -q "^fail .*fs.found_.* none_ctl .*observed=escape: changed out/ctl" "$tmp/hxr.log" && grep -q "^pass .*fs.found_.* ref .*observed=\(confined\|failed_closed\)" "$tmp/hxr.log"' "its scenario file replays the hold: an escape against none_ctl, none against ref: $(grep found_ "$tmp/hxr.log" | head -c 400)"

# ---- explore against none: found, shrunk, written, replayed --------------------------
"$sp" explore --runner none --budget 6 --seed 5 --out "$tmp/n" >"$tmp/n.log" 2>&1
st=$?
check '[ $st -eq 1 ]' "explore against none exits 1 (got $st)"
files=$(ls "$tmp/n/found" 2>/dev/null | wc -l)
check '[ "$files" -ge 1 ]' "it wrote scenario files ($files): $(tail -1 "$tmp/n.log")"
big=$(grep -c "shrunk to [6-9] op\|shrunk to [1-9][0-9] op" "$tmp/n.log")
check '[ "$big" -eq 0 ]' "every violation shrunk to at most 5 ops"
nv=$(sqlite3 "$tmp/n/linux-explore.sqlite" "select count(*) from result r join run on run.id = r.run_id where run.filter = 'explore' and r.verdict = 'fail' and r.impact is not null and r.scenario_id like 'fs.found_%'")
check '[ "$nv" -ge 1 ]' "violations recorded in the database with their class ($nv)"
ev=$(sqlite3 "$tmp/n/linux-explore.sqlite" "select count(*) from evidence where body like 'program: { seed = %'")
check '[ "$ev" -ge 1 ]' "each with its program (seed, policy, ops) as evidence ($ev)"
SANDPROOF_SCENARIOS="$tmp/n" "$sp" run --runner none,ref --out "$tmp/replay" >"$tmp/r.log" 2>&1
rf=$(grep -c "^fail .*fs.found_.* none " "$tmp/r.log")
rp=$(grep -c "^pass .*fs.found_.* ref .*observed=confined" "$tmp/r.log")
check '[ "$rf" -eq "$files" ] && [ "$rp" -eq "$files" ]' "the emitted scenarios replay as they are: $rf of $files fail against none, $rp pass against ref"
"$sp" explore --runner none --budget 6 --seed 5 --out "$tmp/n2" >/dev/null 2>&1
check '[ "$(ls "$tmp/n/found")" = "$(ls "$tmp/n2/found" 2>/dev/null)" ]' "the same seed finds the same shrunk programs ($(ls "$tmp/n/found" | tr "\n" " ") / $(ls "$tmp/n2/found" 2>/dev/null | tr "\n" " "))"

# ---- explore against ref: nothing found ----------------------------------------------
# (ref's one finding so far, a deny_write path moved through a rename of its
# parent, is fixed: FS-2 pins the ancestors; scenarios/found/ keeps it.)
"$sp" explore --runner ref --budget 25 --seed 3 --out "$tmp/r" >"$tmp/ref.log" 2>&1
st=$?
check '[ $st -eq 0 ] && grep -q "^explore ref: 25 programs .* 0 violations, [1-9][0-9]* confined" "$tmp/ref.log"' "explore against ref: exit 0, 0 violations (exit $st: $(tail -2 "$tmp/ref.log"))"
check '[ ! -e "$tmp/r/found" ]' "no scenario file written for ref"
cov=$(sed -n 's/.*coverage: op pairs \([0-9]*\)\/\([0-9]*\), name pairs \([0-9]*\)\/\([0-9]*\);.*/\1 \2 \3 \4/p' "$tmp/ref.log")
check 'set -- $cov; [ $# -eq 4 ] && [ "$1" -ge 1 ] && [ "$1" -le "$2" ] && [ "$3" -ge 1 ] && [ "$3" -le "$4" ]' "coverage stated within its totals: $cov"
pr=$(sqlite3 "$tmp/r/linux-explore.sqlite" "select json_extract(env_json, '$.explore.programs') from run where filter = 'explore'")
check '[ "$pr" = 25 ]' "the run is recorded with its summary ($pr programs)"
# every program's context releases its temp directories' claims: under an
# open-file limit of 64, 40 programs all run (each context used to keep two
# descriptors: errors from program 25 on)
(ulimit -n 64 && "$sp" explore --runner ref --budget 40 --seed 3 --out "$tmp/fd") >"$tmp/fd.log" 2>&1
st=$?
check '[ $st -eq 0 ] && grep -q "^explore ref: 40 programs .* 0 untested, 0 errors" "$tmp/fd.log"' "40 programs under ulimit -n 64, none failing to run (exit $st: $(tail -2 "$tmp/fd.log"))"

"$sp" report "$tmp/r/linux-explore.sqlite" --format markdown -o "$tmp/r.md" >/dev/null 2>&1
check 'grep -q "^### Explore runs" "$tmp/r.md" && grep -q "^|#1|ref|3|25|" "$tmp/r.md"' "the report has an explore section with the run: $(grep '^|#1|ref' "$tmp/r.md")"
"$sp" report "$tmp/n/linux-explore.sqlite" --format html -o "$tmp/n.html" >/dev/null 2>&1
check 'grep -q "<h2>Explore runs</h2>" "$tmp/n.html"' "and so has the HTML report"

# ---- batches: several programs in one launch, each judged as alone ------------------
# none is deterministic: the same seed finds the same violations (program,
# seed, outcome) whether its programs run alone or eight to a launch
for b in 1 8; do
	"$sp" explore --runner none --budget 80 --seed 12 --no-shrink --batch $b --out "$tmp/b$b" >"$tmp/b$b.log" 2>&1
	grep "^violation" "$tmp/b$b.log" | sed 's/^violation [0-9]*: //' | sort >"$tmp/b$b.v"
done
check '[ -s "$tmp/b1.v" ] && cmp -s "$tmp/b1.v" "$tmp/b8.v" && grep -q "residue: " "$tmp/b8.v"' "batched and alone find the same violations against none, residue among them ($(wc -l <"$tmp/b1.v") alone, $(wc -l <"$tmp/b8.v") batched; $(diff "$tmp/b1.v" "$tmp/b8.v" | head -c 300))"
# programs that start a daemon share launches: a launch that leaves one
# alive is run again program by program, where residue is judged for the
# program that left it.  none_hide leaves its leftovers alive and does not
# count them (as an adapter whose runner hands the command to a service):
# only the census by command line finds them, once per launch; the same
# violations batched as alone, and no daemon of it left after the run
cat >"$tmp/k/runners/none_hide.lua" <<'EOT'
local none = require "none"
local M = setmetatable({ name = "none_hide" }, { __index = none })
function M.sandbox(t, spec)
  if not t._ctx.lab then t:lab() end
  local r = t:spawn { argv = spec.command, cwd = spec.cwd, env = { "PATH=/usr/bin:/bin" },
                      timeout_ms = 20000, private_mounts = true, kill_leftovers = false }
  return { outcome = { kind = r.code == 0 and "success" or "application_failure",
                       exit = { code = r.code }, stdout = r.stdout, stderr = r.stderr, denials = {} } }
end
return M
EOT
for b in 1 8; do
	env SANDPROOF_HARNESS_DIR="$tmp/k" "$sp" explore --runner none_hide --budget 80 --seed 12 --no-shrink --batch $b --out "$tmp/nh$b" >"$tmp/nh$b.log" 2>&1 &
	nhpid=$!
	sc_reap 300 $nhpid
	grep "^violation" "$tmp/nh$b.log" | sed 's/^violation [0-9]*: //' | sort >"$tmp/nh$b.v"
	left=$(grep -l "sandproof-$nhpid-explore[_]home" /proc/[0-9]*/cmdline 2>/dev/null | wc -l) # [_]: not this grep
	eval "nhleft$b=\$left"
done
check '[ -s "$tmp/nh1.v" ] && cmp -s "$tmp/nh1.v" "$tmp/nh8.v" && grep -q "residue: " "$tmp/nh8.v" && [ "$nhleft1" = 0 ] && [ "$nhleft8" = 0 ]' "daemons the runner hides: found by the census, the same violations batched as alone, residue among them, none left alive ($(wc -l <"$tmp/nh1.v") alone, $(wc -l <"$tmp/nh8.v") batched, left $nhleft1/$nhleft8; $(diff "$tmp/nh1.v" "$tmp/nh8.v" | head -c 300))"
# the summary lists each distinct finding once, by class, with how many
# violating programs it stands for - as the database counts them - and no
# id twice anywhere in the output (issue 31: never the same id a thousand
# times)
summary_ok() { # LOG DB RUNNER: empty, or what is wrong
	sqlite3 -separator ' ' "$2" "select impact, scenario_id, count(*) from result where verdict = 'fail' group by 1, 2" >"$tmp/sum.db" 2>&1
	line=$(grep "^$3: [0-9]* distinct findings in " "$1")
	awk -v line="$line" -v runner="$3" -v out="$1" '
		{ n[$1]++; c[$2] = $3; cls[$2] = $1; d++; v += $3; if ($3 > 1) multi++ }
		END {
			want = runner ": " d " distinct finding" (d == 1 ? "" : "s") " in " v " violating program" (v == 1 ? "" : "s") " \342\200\224 "
			if (index(line, want) != 1) { print "summary \"" line "\" does not start \"" want "\""; exit }
			if (!multi) { print "no finding stands for several programs: nothing grouped"; exit }
			for (id in c) {
				pat = id (c[id] > 1 ? " \303\227" c[id] : "")
				if (!index(line, " " pat ",") && !index(line, " " pat ";") && substr(line, length(line) - length(pat)) != " " pat) {
					print "summary lacks \"" pat "\""; exit
				}
				k = 0
				while ((getline l < out) > 0) { s = l; while ((i = index(s, id)) > 0) { k++; s = substr(s, i + length(id)) } }
				close(out)
				if (k != 1) { print id " named " k " times in the output"; exit }
			}
			for (x in n) if (!index(line, x " " n[x] ":")) { print "summary lacks \"" x " " n[x] ":\""; exit }
		}' "$tmp/sum.db"
}
why=$(summary_ok "$tmp/b8.log" "$tmp/b8/linux-explore.sqlite" none)
check '[ -z "$why" ]' "the summary lists each distinct finding once with its count, by class: ${why:-$(grep '^none: ' "$tmp/b8.log" | head -c 300)}"
check 'grep -q " 80 launches" "$tmp/b1.log" && grep -q " [1-7][0-9] launches" "$tmp/b8.log"' "alone: a launch a program; batched: fewer ($(grep -o '[0-9]* launches' "$tmp/b1.log") / $(grep -o '[0-9]* launches' "$tmp/b8.log"))"
# two worker processes (--jobs 2) run the same programs between them: the
# same violations, one summary
"$sp" explore --runner none --budget 80 --seed 12 --no-shrink --jobs 2 --out "$tmp/j2" >"$tmp/j2.log" 2>&1
st=$?
grep "^violation" "$tmp/j2.log" | sed 's/^violation [0-9]*: //' | sort >"$tmp/j2.v"
check '[ $st -eq 1 ] && cmp -s "$tmp/b8.v" "$tmp/j2.v" && grep -q "^explore none: 80 programs" "$tmp/j2.log"' "--jobs 2 finds the same violations in the same 80 programs (exit $st; $(diff "$tmp/b8.v" "$tmp/j2.v" | head -c 300); $(tail -1 "$tmp/j2.log" | head -c 120))"
jw=$(sqlite3 "$tmp/j2/linux-explore.sqlite" "select json_extract(env_json, '$.explore.workers') || ':' || (select count(*) from result where verdict = 'fail') from run where filter = 'explore'" 2>&1)
check '[ "$jw" = "2:$(wc -l <"$tmp/j2.v")" ]' "one run recorded with both workers' violations ($jw)"
# a launch stopped (as ref stops the sandbox when a protected name is
# created, META-3): ref_cut keeps a launch's output only up to the first
# program's end and the second's first line, every time, as a stop at that
# moment would: the second is judged as cut, the others run again
cat >"$tmp/h/runners/ref_cut.lua" <<'EOT'
local ref = require "ref"
local M = setmetatable({ name = "ref_cut" }, { __index = ref })
function M.sandbox(t, spec)
  local r = ref.sandbox(t, spec)
  local o = r.outcome
  if #spec.profile.filesystem.write_roots > 1 and o and type(o.stdout) == "string" then
    local keep, after = {}, nil
    for line in o.stdout:gmatch("[^\n]*\n") do
      if after then after = after + 1 if after > 1 then break end end
      keep[#keep + 1] = line
      if not after and line:find('"op":"group"', 1, true) then after = 0 end
    end
    o.stdout = table.concat(keep)
  end
  return r
end
return M
EOT
env SANDPROOF_HARNESS_DIR="$tmp/h" "$sp" explore --runner ref_cut --budget 12 --seed 3 --out "$tmp/cut" >"$tmp/cut.log" 2>&1
st=$?
check '[ $st -eq 0 ] && grep -q "^explore ref_cut: 12 programs .* 0 untested, 0 errors; [0-9]* launches ([1-9][0-9]* programs cut short by a stop, [1-9][0-9]* started again)" "$tmp/cut.log"' "launches stopped early: the program cut short judged, the ones after it run again, all 12 judged (exit $st: $(tail -1 "$tmp/cut.log" | head -c 300))"
# ref_batchbug drops the read-only subpaths and deny_write of a launch with
# several write roots: what a launch of several programs lets through is a
# violation, recorded as not reproduced alone, neither shrunk nor written
cat >"$tmp/h/runners/ref_batchbug.lua" <<'EOT'
local ref = require "ref"
local M = setmetatable({ name = "ref_batchbug" }, { __index = ref })
function M.sandbox(t, spec)
  local fs = spec.profile.filesystem
  if #fs.write_roots > 1 then
    for _, w in ipairs(fs.write_roots) do w.read_only_subpaths = nil end
    fs.deny_write = nil
  end
  return ref.sandbox(t, spec)
end
return M
EOT
env SANDPROOF_HARNESS_DIR="$tmp/h" "$sp" explore --runner ref_batchbug --budget 40 --seed 5 --out "$tmp/bb" >"$tmp/bb.log" 2>&1
st=$?
nu=$(grep -c "seen in a launch of [0-9]* programs; the program run alone: confined: not shrunk, no scenario" "$tmp/bb.log")
check '[ $st -eq 1 ] && [ "$nu" -ge 1 ] && [ ! -e "$tmp/bb/found" ]' "a violation only a batched launch shows: exit 1, recorded as not reproduced alone, no scenario (exit $st, $nu such: $(grep -m1 -A1 '^violation' "$tmp/bb.log" | head -c 300))"
nd=$(sqlite3 "$tmp/bb/linux-explore.sqlite" "select count(*) from result where scenario_id like 'fs.found_unreproduced_%' and verdict = 'fail'" 2>/dev/null)
check '[ "$nd" = "$nu" ]' "each in the database ($nd)"
env SANDPROOF_HARNESS_DIR="$tmp/h" "$sp" explore --runner ref_batchbug --budget 40 --seed 5 --batch 1 --out "$tmp/bb1" >"$tmp/bb1.log" 2>&1
check '[ $? -eq 0 ]' "and none with --batch 1: $(tail -1 "$tmp/bb1.log" | head -c 200)"
# ref_batchfail fails every launch of several programs (no outcome, as a
# runner that dies): said, and each of its programs run alone
cat >"$tmp/h/runners/ref_batchfail.lua" <<'EOT'
local ref = require "ref"
local M = setmetatable({ name = "ref_batchfail" }, { __index = ref })
function M.sandbox(t, spec)
  if #spec.profile.filesystem.write_roots > 1 then return { outcome = { kind = "runner_failed" } } end
  return ref.sandbox(t, spec)
end
return M
EOT
env SANDPROOF_HARNESS_DIR="$tmp/h" "$sp" explore --runner ref_batchfail --budget 16 --seed 5 --out "$tmp/bf" >"$tmp/bf.log" 2>&1
st=$?
check '[ $st -eq 0 ] && grep -q "^explore ref_batchfail: 16 programs .* 0 untested, 0 errors" "$tmp/bf.log" && grep -q "^[1-9][0-9]* launches of several programs failed, their programs then run alone (first: .*runner_failed)" "$tmp/bf.log"' "a launch of several programs that failed is said, its programs run alone and judged (exit $st: $(tail -2 "$tmp/bf.log" | head -c 400))"

# ---- interrupted: what ran is recorded, the run left unfinished, nothing left behind
# The signal goes once a launch has begun: a process keeps its universes
# for the whole run in its home, /tmp/sandproof-PID-explore_home-*, where
# universe 1 is laid out as its first launch starts (past the last check
# for an interrupt before it: that launch then finishes and is judged); a
# fixed sleep instead, on a loaded machine, could interrupt before any
# program was judged.
launched() { [ -n "$(ls -d /tmp/sandproof-"$1"-explore_home-*/u1 2>/dev/null)" ]; }
"$sp" explore --runner ref --time 120 --seed 4 --out "$tmp/int" >"$tmp/int.log" 2>&1 &
pid=$!
sc_wait 120 "$pid" launched "$pid"
kill -INT $pid
sc_reap 120 $pid
st=$?
ip=$(sqlite3 "$tmp/int/linux-explore.sqlite" "select json_extract(env_json, '$.explore.programs') || ':' || json_extract(env_json, '$.explore.interrupted') || ':' || ifnull(finished_at, 'unfinished') from run where filter = 'explore'" 2>&1)
check '[ $st -eq 130 ] && grep -q "interrupted by SIGINT: stopped after the running launch; [1-9][0-9]* programs and 0 violations recorded" "$tmp/int.log" && case "$ip" in [1-9]*:2:unfinished) true;; *) false;; esac' "SIGINT: exit 130, the programs run so far recorded, the run unfinished (exit $st, $ip: $(tail -1 "$tmp/int.log" | head -c 300))"
check '! ls -d /tmp/sandproof-$pid-* /var/tmp/sandproof-$pid-* >/dev/null 2>&1' "and no temp directory of it left"
"$sp" explore --runner ref --time 120 --seed 4 --jobs 2 --out "$tmp/intj" >"$tmp/intj.log" 2>&1 &
pid=$!
# the signal goes once both workers (forked, after the handler is
# installed) run a launch: each has laid out its universe 1
workers_run() {
	k=0
	for w in $(pgrep -P "$pid"); do launched "$w" && k=$((k + 1)); done
	[ "$k" -eq 2 ]
}
sc_wait 120 "$pid" workers_run
kill -TERM $pid
sc_reap 120 $pid
st=$?
ip=$(sqlite3 "$tmp/intj/linux-explore.sqlite" "select json_extract(env_json, '$.explore.workers') || ':' || json_extract(env_json, '$.explore.interrupted') || ':' || ifnull(finished_at, 'unfinished') from run where filter = 'explore'" 2>&1)
check '[ $st -eq 143 ] && [ "$ip" = "2:15:unfinished" ] && grep -q "interrupted by SIGTERM" "$tmp/intj.log"' "SIGTERM to --jobs 2: passed to both workers, exit 143, what they ran recorded (exit $st, $ip)"

echo "1..$n"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
