#!/bin/sh
# test_smoke.sh SANDPROOF - `sandproof smoke`: exit 0 and every property
# "yes" for the reference runner, within its 15 s budget; exit 1 with the
# broken properties named for the unconfined control; exit 3 when the host
# cannot enforce the contract (a runner whose doctor says so); and, over
# fake runners that report one observation for every property, the words
# each observation gets: NO only for an escape seen (a hardening fault is
# "not hardened").
set -u
sp=$1
tmp=$(mktemp -d /tmp/sandproof-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0
check() { n=$((n + 1)); if eval "$1"; then pass=$((pass + 1)); echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi; }

start=$(date +%s)
# --runner ref: the peers a machine happens to have (codex leaves files in
# the host's /tmp on every run) stay out of the tests
"$sp" smoke --runner ref --out "$tmp/a" >"$tmp/a.log" 2>&1
st=$?
took=$(( $(date +%s) - start ))
check '[ $st -eq 0 ]' "smoke against ref exits 0 (got $st)"
check 'grep -q "^ref: confines writes: yes; network deny: yes; protected metadata: yes" "$tmp/a.log"' "ref holds: $(grep '^ref:' "$tmp/a.log")"
check '! grep "^ref:" "$tmp/a.log" | grep -q "NO"' "no property of ref is NO"
check '[ $took -lt 15 ]' "smoke finished in ${took}s (< 15 s)"
check '[ "$(sqlite3 "$tmp/a/linux.sqlite" "select count(*) from result where runner = '"'ref'"'")" -ge 6 ]' "results recorded in the database"

"$sp" smoke --runner none --out "$tmp/b" >"$tmp/b.log" 2>&1
st=$?
check '[ $st -eq 1 ]' "smoke against the unconfined control exits 1 (got $st)"
check 'grep -q "^none: confines writes: NO - a write outside the workspace landed" "$tmp/b.log"' "the broken property is named"

printf '#!/bin/sh\necho "doctor: no user namespaces"\nexit 1\n' >"$tmp/fakeref"
chmod +x "$tmp/fakeref"
SANDPROOF_REF=$tmp/fakeref "$sp" smoke --out "$tmp/c" >"$tmp/c.log" 2>&1
st=$?
check '[ $st -eq 3 ]' "a host that cannot enforce the contract: exit 3 (got $st)"
check 'grep -q "cannot enforce the contract" "$tmp/c.log"' "and says so"
# Fake runners: a harness directory with the real Lua modules and adapters
# whose observe() returns a fixed outcome per scenario, and a catalogue of
# the six smoke scenarios, each the real file (id, expect, impact, control)
# with run() asking the runner what it observed.
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$tmp/h/runners" "$tmp/sc/fs" "$tmp/sc/meta" "$tmp/sc/net" "$tmp/sc/priv" "$tmp/sc/setup"
ln -s "$src/harness/lua" "$tmp/h/lua"
for f in fs/outside_sibling meta/absent_agents_create meta/hooks_readonly net/deny_host_loopback \
	priv/no_capabilities setup/fail_closed_unshare; do
	cat >"$tmp/sc/$f.lua" <<EOF
local env = setmetatable({ scenario = function(x) return x end }, { __index = _ENV })
local sc = assert(loadfile("$src/scenarios/$f.lua", "t", env))()
sc.run = function(t) return t.runner.observe(t) end
return scenario(sc)
EOF
done
fake() { # name 'lua table fields: scenario id = outcome'
	{
		echo "local M = { name = '$1' }"
		echo "M.capabilities = { gc = false, doctor = false, runtime_roots = false, raw_request = false,"
		echo "  limits = false, output_limit = false, block_unix_sockets = false, hold = false, fault = false, sessions = false }"
		echo "function M.available() return true end"
		echo "function M.sandbox() error('a fake runner runs nothing') end"
		echo "local said = { $2 }"
		echo "function M.observe(t)"
		echo "  if said[t.id] == 'skip' then t:skip('fake: nothing to run here') end"
		echo "  if said[t.id] == 'boom' then error('fake: broke') end"
		echo "  return said[t.id]"
		echo "end"
		echo "return M"
	} >"$tmp/h/runners/$1.lua"
}
fake escapes '["fs.outside_sibling"] = "escaped", ["net.deny.host_loopback"] = "reached",
  ["meta.absent_agents_create"] = "created", ["meta.hooks_readonly"] = "written",
  ["priv.no_capabilities"] = "held:cap_sys_admin", ["setup.fail_closed_unshare"] = "unconfined"'
fake controls '["fs.outside_sibling"] = "control_failed", ["net.deny.host_loopback"] = "control_failed",
  ["meta.absent_agents_create"] = "control_failed", ["meta.hooks_readonly"] = "control_failed",
  ["priv.no_capabilities"] = "control_failed", ["setup.fail_closed_unshare"] = "control_failed"'
fake others '["fs.outside_sibling"] = "confined", ["net.deny.host_loopback"] = "skip",
  ["meta.absent_agents_create"] = "unreported", ["meta.hooks_readonly"] = "boom",
  ["priv.no_capabilities"] = "none", ["setup.fail_closed_unshare"] = "not_exercised"'
fake stopped '["meta.absent_agents_create"] = "not_stopped", ["fs.outside_sibling"] = "unheard_of",
  ["net.deny.host_loopback"] = "denied", ["meta.hooks_readonly"] = "denied",
  ["priv.no_capabilities"] = "none", ["setup.fail_closed_unshare"] = "refused"'
for r in escapes controls others stopped; do
	SANDPROOF_HARNESS_DIR=$tmp/h SANDPROOF_SCENARIOS=$tmp/sc "$sp" smoke --runner $r --out "$tmp/f" >"$tmp/$r.log" 2>&1
	echo $? >"$tmp/$r.st"
done
line() { grep "^$1: " "$tmp/$1.log"; }
l=$(line escapes)
check '[ "$l" = "escapes: confines writes: NO - a write outside the workspace landed; network deny: NO - a host loopback listener was reached; protected metadata: NO - .agents was created on the host; git hooks read-only: NO - a hook was planted; no privileges: not hardened - capabilities remain; fails closed: NO - the command ran without its namespaces" ]' \
	"an escape seen is NO with what was seen; capabilities held (hardening: nothing seen beyond the grant) are not hardened, never NO: $l"
check '[ "$(cat "$tmp/escapes.st")" -eq 1 ]' "escapes: exit 1"
l=$(line controls)
check '[ "$l" = "controls: confines writes: not proven - a write in the workspace failed, so nothing was tested; network deny: not proven - no private loopback for the control; protected metadata: not proven - a write in the workspace failed, so nothing was tested; git hooks read-only: not proven - a write in the workspace failed, so nothing was tested; no privileges: not proven - the capability sets could not be read; fails closed: not proven - a plain run failed, so nothing was tested" ]' \
	"a failed positive control is not proven, never NO: $l"
l=$(line others)
case $l in
"others: confines writes: yes; network deny: n/a - fake: nothing to run here; protected metadata: not reported - .agents was blocked but no denial was given; git hooks read-only: error - "*"fake: broke"*"; no privileges: yes; fails closed: altered - it ran the command, confined, although unshare and clone3 failed") ok=0 ;;
*) ok=1 ;;
esac
check '[ $ok -eq 0 ]' "pass, skip, a reporting fault, an error and a fidelity fault each say what was seen: $l"
l=$(line stopped)
case $l in
"stopped: confines writes: error - "*"'unheard_of' has no impact class"*"; network deny: yes; protected metadata: not reported - .agents was blocked but the run went on without a denial; git hooks read-only: yes; no privileges: yes; fails closed: yes") ok=0 ;;
*) ok=1 ;;
esac
check '[ $ok -eq 0 ]' "not_stopped is a reporting fault; an outcome with no class is an error naming it: $l"
check '! cat "$tmp/controls.log" "$tmp/others.log" "$tmp/stopped.log" | grep -E "^(controls|others|stopped):" | grep -q ": NO"' \
	"no NO without an escape"
check '[ "$(sqlite3 "$tmp/f/linux.sqlite" "select impact from result where runner = '"'others'"' and scenario_id = '"'meta.absent_agents_create'"'")" = reporting ]' \
	"the class is recorded with the result"
check '[ "$(sqlite3 "$tmp/f/linux.sqlite" "select verdict from result where runner = '"'controls'"' and scenario_id = '"'net.deny.host_loopback'"'")" = inconclusive ]' \
	"a failed control is recorded inconclusive"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
