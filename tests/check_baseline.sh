#!/bin/sh
# tests/check_baseline.sh SANDPROOF [BASELINE] - the committed baseline the
# main job's regression gate compares with (default
# reports/baseline/linux.json) holds every scenario of the catalogue for
# linux/ref, and no scenario the catalogue lacks.  A scenario missing from it
# is listed as "added" on every run and can never be seen to regress; one it
# holds that no longer exists is a "vanished" pass.  Exit 1 naming each, with
# the one command that regenerates it (reports/README.md, "The regression
# gate").
set -eu
export LC_ALL=C
sp=$1
here=$(cd "$(dirname "$0")/.." && pwd)
base=${2:-$here/reports/baseline/linux.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -r "$base" ] || { echo "check_baseline: cannot read $base" >&2; exit 1; }
"$sp" list | cut -f1 | sort >"$tmp/catalogue"
# sqlite3's JSON functions read the export (a malformed file fails here)
sqlite3 :memory: "select key from json_each(readfile('$base'), '\$.results.linux.ref')" \
	>"$tmp/raw" 2>"$tmp/err" || { echo "check_baseline: $base: $(cat "$tmp/err")" >&2; exit 1; }
sort "$tmp/raw" >"$tmp/baseline"
[ -s "$tmp/catalogue" ] || { echo "check_baseline: sandproof list gave no scenario" >&2; exit 1; }
missing=$(comm -23 "$tmp/catalogue" "$tmp/baseline")
extra=$(comm -13 "$tmp/catalogue" "$tmp/baseline")
status=0
if [ -n "$missing" ]; then
	echo "$base lacks $(echo "$missing" | wc -l) scenario(s) of the catalogue for linux/ref:" $missing >&2
	status=1
fi
if [ -n "$extra" ]; then
	echo "$base holds scenario(s) the catalogue does not have:" $extra >&2
	status=1
fi
if [ "$status" -ne 0 ]; then
	echo "regenerate it from a full run of the main job, as root: sh ci/run-suite.sh &&" \
		"build/sandproof baseline sandproof-out/linux.sqlite -o reports/baseline/linux.json" >&2
else
	echo "$base: all $(wc -l <"$tmp/catalogue") scenarios of the catalogue"
fi
exit "$status"
