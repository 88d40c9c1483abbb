#!/bin/sh
# test_catalogue_jobs1.sh SANDPROOF DB - `run --jobs N` gives the verdicts
# of `--jobs 1` (issue 34 §2): none's (scenario, verdict, impact class) set
# over the whole catalogue in DB, test_catalogue's `--jobs N` run (kept by
# it: SANDPROOF_CATALOGUE_KEEP, its exit status in DB.status), equals that
# of a `--jobs 1` run made now with the same build, host and user (a
# committed baseline would go stale with every scenario changed and differs
# by host and user, skips above all).  none, the control: its failing
# outcomes and their impact classes are the verdict set that can move;
# ref's are all pass, which test_catalogue checks.  This run is apart from
# test_catalogue so that ctest runs it beside other tests: none confines
# nothing, and nothing of its verdicts waits on another pair's load.
# SANDPROOF_CATALOGUE_JOBS1=0 (ci/test.sh's sanitizer leg: the root and
# unprivileged legs compare) skips it, exit 77.
set -u
sp=$1 db=$2
if [ "${SANDPROOF_CATALOGUE_JOBS1:-1}" = 0 ]; then
	echo "1..0 # SKIP SANDPROOF_CATALOGUE_JOBS1=0 (compared in the root and unprivileged legs)"
	exit 77
fi
out=$(mktemp -d /tmp/sandproof-cat1.XXXXXX)
trap 'rm -rf "$out"' EXIT
[ -s "$db" ] && [ -s "$db.status" ] || { echo "not ok 1 - test_catalogue's database $db is there"; exit 1; }
"$sp" run --runner none --out "$out/j" >"$out/j.log" 2>&1
jstatus=$?
status=$(cat "$db.status")
verdicts() { sqlite3 "$1" "select scenario_id, runner, verdict, coalesce(impact, '-') from result where runner = 'none' order by 1, 2"; }
verdicts "$db" >"$out/vj"
verdicts "$out/j/linux.sqlite" >"$out/v1"
diff "$out/v1" "$out/vj" >"$out/vdiff"
jobs=$(sqlite3 "$db" "select json_extract(env_json, '$.jobs') from run limit 1" 2>/dev/null)
if [ -s "$out/v1" ] && [ ! -s "$out/vdiff" ] && [ "$jstatus" -eq "$status" ]; then
	echo "ok 1 - --jobs ${jobs:-N}: none's verdicts of --jobs 1 over $(wc -l <"$out/v1") scenarios (exit $jstatus)"
	exit 0
fi
echo "not ok 1 - --jobs ${jobs:-N}: none's verdicts of --jobs 1 over $(wc -l <"$out/v1") scenarios (exit $jstatus, --jobs N: $status)"
sed 's/^/# /' "$out/vdiff" | head -40
exit 1
