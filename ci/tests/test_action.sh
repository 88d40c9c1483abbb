#!/bin/sh
# test_action.sh BUILD SRC - the GitHub Action's logic (ci/action.sh) as
# action.yml runs it, with GitHub's files (GITHUB_PATH,
# GITHUB_STEP_SUMMARY) as temp files:
#   - install: BUILD installed into a temp prefix, its bin/ added to
#     GITHUB_PATH, and the steps after it use that copy;
#   - ref over fs.outside_* (the scenarios none escapes): run makes the database and the reports, the
#     summary gets the Markdown report, the gate passes;
#   - a baseline from that run: the same run passes the gate; a run that
#     lost passes of the baseline (a narrower filter) fails it, naming the
#     regression, with no escape;
#   - none over fs.outside_*: the run itself succeeds, the gate fails
#     naming both escapes, in the summary too;
#   - an unknown runner: run exits 2 (sandproof's usage error), the gate has
#     nothing to judge (exit 2); an adapter file is passed as --adapter FILE
#     --runner <base name>.
# Exit 0 all held, 1 otherwise.
set -u
build=$1 src=$2
. "$src/harness/tests/sc_lib.sh"
sc_tmp action || exit 1
act=$src/ci/action.sh
cd "$tmp"
: >"$tmp/path" >"$tmp/summary"

RUNNER_TEMP=$tmp SANDPROOF_ACTION_BUILD=$build SANDPROOF_ACTION_PREFIX=$tmp/prefix \
	GITHUB_PATH=$tmp/path sh "$act" install >"$tmp/install.log" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/path")" = "$tmp/prefix/bin" ] && [ -x "$tmp/prefix/bin/sandproof" ] &&
	ok "install: cmake --install into the prefix, its bin/ on GITHUB_PATH" ||
	notok "install exited $rc: $(tail -3 "$tmp/install.log")"
PATH=$tmp/prefix/bin:$PATH
export PATH GITHUB_STEP_SUMMARY="$tmp/summary"
[ "$(command -v sandproof)" = "$tmp/prefix/bin/sandproof" ] ||
	notok "the steps after install do not run the installed sandproof"

# step RUNNER FILTER BASELINE OUT: ci/action.sh run then gate, as action.yml
# runs them; rc_run, rc_gate, and the logs OUT.run, OUT.gate
step() {
	SANDPROOF_ACTION_RUNNER=$1 SANDPROOF_ACTION_FILTER=$2 SANDPROOF_ACTION_BASELINE=$3 \
		SANDPROOF_ACTION_OUT=$4 sh "$act" run >"$tmp/$4.run" 2>&1
	rc_run=$?
	SANDPROOF_ACTION_BASELINE=$3 SANDPROOF_ACTION_OUT=$4 sh "$act" gate >"$tmp/$4.gate" 2>&1
	rc_gate=$?
}

step ref 'fs.outside_*' '' ref
[ $rc_run -eq 0 ] && grep -q "^sandproof action: sandproof run --out ref --runner ref --filter fs\.outside_\*" "$tmp/ref.run" &&
	ok "run: ref over fs.outside_* through the installed sandproof" || notok "run ref exited $rc_run: $(tail -3 "$tmp/ref.run")"
for f in linux.sqlite report.html report.junit.xml report.md; do
	[ -s "ref/$f" ] || notok "run left no ref/$f"
done
grep -q "Impact of the failures" "$tmp/summary" && ok "the Markdown report is in the step summary" ||
	notok "the step summary has no Markdown report"
[ $rc_gate -eq 0 ] && grep -q "pass: no escape" "$tmp/ref.gate" && ok "gate: ref passes (exit 0)" ||
	notok "gate over ref exited $rc_gate: $(cat "$tmp/ref.gate")"

sandproof baseline ref/linux.sqlite -o "$tmp/base.json" >/dev/null 2>&1
step ref 'fs.outside_*' "$tmp/base.json" same
[ $rc_run -eq 0 ] && [ $rc_gate -eq 0 ] && grep -q "no regression against" "$tmp/same.gate" &&
	ok "gate: the same run against its baseline passes" ||
	notok "same run against its baseline: run $rc_run, gate $rc_gate: $(cat "$tmp/same.gate")"
step ref 'fs.outside_sibling' "$tmp/base.json" narrow
[ $rc_run -eq 0 ] && [ $rc_gate -eq 1 ] && grep -q "FAIL: a regression against" "$tmp/narrow.gate" &&
	grep -q "vanished" "$tmp/narrow.gate" && ! grep -q "escape(s)" "$tmp/narrow.gate" &&
	ok "gate: passes of the baseline that vanished fail it (exit 1), no escape claimed" ||
	notok "vanished passes: run $rc_run, gate $rc_gate: $(head -5 "$tmp/narrow.gate")"

step none 'fs.outside_*' '' none
[ $rc_run -eq 0 ] && [ $rc_gate -eq 1 ] &&
	grep -q "FAIL: 2 escape(s): fs.outside_sibling fs.outside_system" "$tmp/none.gate" &&
	grep -q "sandproof gate: 2 escape(s)" "$tmp/summary" &&
	ok "gate: none fails on its 2 escapes (exit 1), named in the summary" ||
	notok "gate over none: run $rc_run, gate $rc_gate: $(cat "$tmp/none.gate")"

step no_such_runner '' '' bad
[ $rc_run -eq 2 ] && [ $rc_gate -eq 2 ] && grep -q "unknown runner" "$tmp/bad.run" &&
	ok "an unknown runner: run exits 2 (sandproof's), the gate has nothing to judge (2)" ||
	notok "unknown runner: run $rc_run, gate $rc_gate: $(tail -2 "$tmp/bad.run")"
step "$tmp/nowhere/mybox.lua" '' '' adapter
[ $rc_run -eq 2 ] &&
	grep -q "sandproof run --out adapter --adapter $tmp/nowhere/mybox.lua --runner mybox\$" "$tmp/adapter.run" &&
	ok "an adapter file goes as --adapter FILE --runner mybox (a missing one: exit 2)" ||
	notok "adapter file: run $rc_run: $(head -2 "$tmp/adapter.run")"
tap_end
