#!/bin/sh
# ci/action.sh install|run|gate - the logic of the GitHub Action
# (action.yml at the repository's root), runnable anywhere:
#
#   install  builds sandproof from this tree and installs it with `cmake
#            --install` into SANDPROOF_ACTION_PREFIX (default
#            $RUNNER_TEMP/sandproof), building in SANDPROOF_ACTION_BUILD
#            (default $RUNNER_TEMP/sandproof-build; one already configured
#            is reused as it is, its dependencies not installed again);
#            checks the installed copy finds its data in that prefix, and
#            adds its bin/ to $GITHUB_PATH when GitHub set it.
#   run      replays the catalogue (SANDPROOF_ACTION_FILTER, a glob; empty:
#            all of it) against SANDPROOF_ACTION_RUNNER - a built-in name,
#            contract:PATH, or an adapter file FILE.lua (given to sandproof
#            as --adapter FILE.lua --runner <its base name>) - into
#            SANDPROOF_ACTION_OUT (default sandproof-out): the database
#            <os>.sqlite, report.html, report.junit.xml, report.md, and
#            with SANDPROOF_ACTION_BASELINE the diff against it
#            (baseline-diff.txt); the Markdown report and the gate's
#            findings go to $GITHUB_STEP_SUMMARY when GitHub set it.  Exit 0
#            when the run and its reports were made (whatever the verdicts;
#            the gate judges them), else sandproof's own exit status (2
#            usage, 3 internal, ...).
#   gate     judges the database in SANDPROOF_ACTION_OUT: exit 1 on any
#            failure of impact class escape (counted from the database
#            through the JUnit report's impact.escape properties) or on a
#            regression against SANDPROOF_ACTION_BASELINE (`sandproof diff
#            --baseline`: a pass gone worse, or vanished); 0 otherwise;
#            2 when there is no database to judge.
# SANDPROOF names the sandproof to use (default: the one on PATH).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
sp=${SANDPROOF:-sandproof}
out=${SANDPROOF_ACTION_OUT:-sandproof-out}
runner=${SANDPROOF_ACTION_RUNNER:-ref}
filter=${SANDPROOF_ACTION_FILTER:-}
baseline=${SANDPROOF_ACTION_BASELINE:-}
tmpbase=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

say() { echo "sandproof action: $*"; }
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat >>"$GITHUB_STEP_SUMMARY"; }

do_install() {
	build=${SANDPROOF_ACTION_BUILD:-$tmpbase/sandproof-build}
	prefix=${SANDPROOF_ACTION_PREFIX:-$tmpbase/sandproof}
	if [ ! -f "$build/CMakeCache.txt" ]; then
		sh "$here/ci/deps.sh" --build
		# Homebrew's sqlite is keg-only: its pkg-config file is not linked
		if command -v brew >/dev/null 2>&1; then
			PKG_CONFIG_PATH="$(brew --prefix sqlite)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
			export PKG_CONFIG_PATH
		fi
		# not -Werror: a newer compiler's new warning must not stop an install
		cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSANDPROOF_WERROR=OFF >/dev/null
	fi
	cmake --build "$build" -j "$( (nproc || sysctl -n hw.ncpu) 2>/dev/null || echo 2)" >/dev/null
	cmake --install "$build" --prefix "$prefix" >/dev/null
	"$prefix/bin/sandproof" env >"$tmpbase/sandproof-env.json"
	grep -q '"layout":[[:space:]]*"installed"' "$tmpbase/sandproof-env.json" || {
		say "the installed sandproof does not find its data in $prefix:"
		cat "$tmpbase/sandproof-env.json"
		exit 1
	}
	[ -z "${GITHUB_PATH:-}" ] || echo "$prefix/bin" >>"$GITHUB_PATH"
	say "installed $("$prefix/bin/sandproof" --version) into $prefix"
}

# The database of this OS in $out (the harness names it after the OS).
db_path() {
	os=$("$sp" env 2>/dev/null | sed -n 's/^[[:space:]]*"os":[[:space:]]*"\([a-z0-9-]*\)".*/\1/p' |
		head -n 1)
	echo "$out/${os:-linux}.sqlite"
}

do_run() {
	set -- run --out "$out"
	case $runner in
	*.lua) set -- "$@" --adapter "$runner" --runner "$(basename "$runner" .lua)" ;;
	*) set -- "$@" --runner "$runner" ;;
	esac
	[ -z "$filter" ] || set -- "$@" --filter "$filter"
	mkdir -p "$out"
	say "$sp $*"
	{ rc=0; "$sp" "$@" || rc=$?; echo "$rc" >"$out/run.rc"; } | tee "$out/run.log"
	rc=$(cat "$out/run.rc")
	# 0: every result expected; 1: some were not, which the gate judges
	[ "$rc" -le 1 ] || { say "sandproof run exited $rc: nothing to judge"; exit "$rc"; }
	db=$(db_path)
	[ -s "$db" ] || { say "no database at $db"; exit 3; }
	"$sp" report "$db" --format html -o "$out/report.html"
	"$sp" report "$db" --format junit -o "$out/report.junit.xml"
	"$sp" report "$db" --format markdown -o "$out/report.md"
	summary <"$out/report.md"
	if [ -n "$baseline" ]; then
		drc=0
		"$sp" diff --baseline "$baseline" "$db" >"$out/baseline-diff.txt" 2>&1 || drc=$?
		cat "$out/baseline-diff.txt"
		[ "$drc" -le 1 ] || { say "sandproof diff exited $drc"; exit "$drc"; }
	fi
	say "database $db; reports $out/report.html, report.junit.xml, report.md"
}

do_gate() {
	db=$(db_path)
	[ -s "$db" ] || { say "no database at $db to judge"; exit 2; }
	"$sp" report "$db" --format junit -o "$out/gate.junit.xml"
	escapes=$(sed -n 's/.*<property name="impact\.escape" value="\([0-9]*\).*/\1/p' \
		"$out/gate.junit.xml" | awk '{ n += $1 } END { print n + 0 }')
	grep -q 'name="impact\.escape"' "$out/gate.junit.xml" ||
		{ say "the JUnit report of $db has no impact.escape property"; exit 2; }
	status=0
	if [ "$escapes" -gt 0 ]; then
		ids=$(sed -n 's/.*<property name="impact\.escape" value="[0-9]*: \([^"]*\)".*/\1/p' \
			"$out/gate.junit.xml" | tr '\n' ' ')
		say "FAIL: $escapes escape(s): $ids"
		printf '\n**sandproof gate: %s escape(s)**: %s\n' "$escapes" "$ids" | summary
		status=1
	fi
	if [ -n "$baseline" ]; then
		drc=0
		"$sp" diff --baseline "$baseline" "$db" >"$out/gate-diff.txt" 2>&1 || drc=$?
		if [ "$drc" -eq 1 ]; then
			say "FAIL: a regression against $baseline:"
			cat "$out/gate-diff.txt"
			printf '\n**sandproof gate: a regression against %s**\n\n```\n%s\n```\n' \
				"$baseline" "$(cat "$out/gate-diff.txt")" | summary
			status=1
		elif [ "$drc" -ne 0 ]; then
			say "sandproof diff --baseline $baseline exited $drc:"
			cat "$out/gate-diff.txt"
			exit 2
		fi
	fi
	[ "$status" -ne 0 ] || {
		say "pass: no escape${baseline:+, no regression against $baseline}"
		printf '\n**sandproof gate: pass** (no escape%s)\n' \
			"${baseline:+, no regression against $baseline}" | summary
	}
	exit "$status"
}

case ${1:-} in
install) do_install ;;
run) do_run ;;
gate) do_gate ;;
*) echo "usage: ci/action.sh install|run|gate (settings in SANDPROOF_ACTION_*)" >&2; exit 2 ;;
esac
