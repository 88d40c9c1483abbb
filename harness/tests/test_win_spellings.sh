#!/bin/sh
# test_win_spellings.sh SANDPROOF - the Windows-only meta.win_hooks_*
# scenarios (alternate data streams, case, 8.3 short names, trailing dots
# and spaces, \\?\ \\.\ and UNC prefixes, hard links) run on Linux, where
# their expectations say unsupported, through winmodel/winpath.lua: a
# model of how Win32 names an object by a spelling.  Their copies expect
# "denied" on Linux; the runners are adapters that rewrite the probe's
# paths by the model for some spelling classes, over none or over ref.
# It shows that each scenario can fail, by the spelling it is about, and
# pass:
#   - over none with one class alone, the scenario about it is written
#     (each of the three prefixes on its own), and with no class the same
#     spelling reaches nothing (denied): the class is what makes it fail;
#   - over none with every class, all six are written;
#   - over ref with every class, all six are denied (ref protects
#     .git/hooks by the name the model resolves).
# A stand-in for the one native part (Windows resolving the spelling):
# never a Windows result, and nothing here says how a Windows runner
# answers these spellings (only the native CI leg can).
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp winspell

# the scenarios, expecting "denied" on Linux instead of unsupported
mkdir -p "$tmp/sc/meta"
for f in "$here"/../../scenarios/meta/win_hooks_*.lua; do
	sc_copy_expecting "$f" "$tmp/sc/meta/$(basename "$f")" '"denied"'
done

# the adapters: winpath_<class> over none, winpath_all over none and over ref
sc_harness "$tmp/h" "$here/../runners/none.lua" "$here/../runners/ref.lua" "$here/winmodel/winpath.lua" \
	"$here/winmodel/argv.lua"
classes="prefix_q prefix_dot unc trailing case short stream data"
adapter() { # NAME BASE CLASSES...
	name=$1 base=$2
	shift 2
	on=""
	for c in "$@"; do on="$on $c = true,"; done
	printf 'return require("winpath").adapter("%s", require("%s"), {%s })\n' "$name" "$base" "$on" \
		>"$tmp/h/runners/$name.lua"
}
runners="winpath_off,winpath_all,winpath_ref"
adapter winpath_off none
# shellcheck disable=SC2086 # the class list is words
adapter winpath_all none $classes
# shellcheck disable=SC2086
adapter winpath_ref ref $classes
for c in $classes; do
	adapter "winpath_$c" none "$c"
	runners="$runners,winpath_$c"
done

env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/sc" \
	"$sp" run --runner "$runners" --out "$tmp/out" >"$tmp/run.log" 2>"$tmp/run.err"

expect() { sc_expect "$tmp/run.log" "meta.win_hooks_$1" "$2" "$3" "$4"; } # SCENARIO RUNNER OUTCOME WHY

for s in case:case trailing:trailing shortname:short prefix:prefix_q prefix:prefix_dot prefix:unc; do
	expect "${s%%:*}" "winpath_${s#*:}" written "the ${s#*:} spelling alone reaches .git/hooks"
done
for s in case trailing shortname prefix; do
	expect "$s" winpath_off denied "without the model the spelling reaches nothing"
done
expect ads winpath_stream written "hooks:evil is a stream of hooks"
expect ads winpath_data written "pre-commit::\$DATA is pre-commit"
for s in ads case hardlink prefix shortname trailing; do
	expect "$s" winpath_all written "every class, nothing confined"
	expect "$s" winpath_ref denied "ref protects .git/hooks by its resolved name"
done
tap_end "$tmp/run.err"
