#!/bin/sh
# test_smoke.sh SANDPROOF - `sandproof smoke`: exit 0 and every property
# "yes" for the reference runner, within its 15 s budget; exit 1 with the
# broken properties named for the unconfined control; exit 3 when the host
# cannot enforce the contract (a runner whose doctor says so).
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
