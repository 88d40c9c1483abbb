#!/bin/sh
# bench/mutate.sh [--filter GLOB] [--jobs N] [PATCH...] - the mutation audit:
# does the catalogue notice when sandproof-ref is broken?
#
# Each bench/mutants/*.patch (or each PATCH named) is a small realistic bug
# in ref/ or platforms/, made against HEAD (the patches are committed, so
# commit before an audit).  For each: a scratch worktree of HEAD gets the patch,
# sandproof-ref is built from it, and the whole catalogue (or --filter) runs
# against that binary with the harness, probe and scenarios of the clean
# build (SANDPROOF_REF points the ref adapter at the mutant).  A mutant is
#   killed      when the run exits 1: some scenario's outcome left its
#               expected set (the scenarios that failed are listed);
#   survived    when every result stayed in its expected set;
#   stillborn   when the patch does not apply or the mutant does not build
#               (the patch is stale: regenerate it);
#   harness     when the run itself failed (exit 2 or 3).
# A patch whose first line starts with "equivalent:" is a mutant known not
# to change behaviour; its line says why, and a survivor of that kind is
# reported as equivalent.  The clean binary runs the same catalogue first;
# a clean run that fails stops the audit (nothing can be concluded).
#
# Output: a Markdown table on stdout (for bench/RESULTS.md) and, per
# mutant, its log and database under build-mutate/.  Never a test: the
# full audit takes about (number of mutants + 1) x the catalogue's time.
# Exit 0 when every mutant is killed or equivalent, 1 otherwise, 2 usage.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
work=${SANDPROOF_MUTATE_DIR:-$here/build-mutate}
filter=""
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	--filter) filter=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "mutate: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- "$here"/bench/mutants/*.patch
fi
for p in "$@"; do
	[ -f "$p" ] || { echo "mutate: no such patch: $p" >&2; exit 2; }
done

# Everything is built from one scratch worktree pinned at HEAD, so edits
# made to the working tree while the audit runs change nothing in it.
mkdir -p "$work"
clean=$work/clean
src=$work/src
mut=$work/mut
if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
	rm -rf "$src"
	git -C "$here" worktree add --detach -q "$src" HEAD
fi
git -C "$src" checkout -q --detach "$(git -C "$here" rev-parse HEAD)"
git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
cmake -S "$src" -B "$clean" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$clean" -j "$jobs" --target sandproof sandproof-ref sandproof-probe >/dev/null

catalogue() { # out-dir ref-binary
	set -- "$1" "$2"
	if [ -n "$filter" ]; then
		SANDPROOF_REF=$2 "$clean/sandproof" run --runner ref --filter "$filter" --out "$1" \
			>"$1.log" 2>&1
	else
		SANDPROOF_REF=$2 "$clean/sandproof" run --runner ref --out "$1" >"$1.log" 2>&1
	fi
}

rm -rf "$work/run-clean" "$work/run-clean.log"
st=0
catalogue "$work/run-clean" "$clean/sandproof-ref" || st=$?
if [ "$st" -ne 0 ]; then
	echo "mutate: the clean build does not pass the catalogue (exit $st); see $work/run-clean.log" >&2
	exit 1
fi

echo "| mutant | what it breaks | result | scenarios that failed |"
echo "|---|---|---|---|"
all=0
for p in "$@"; do
	name=$(basename "$p" .patch)
	what=$(sed -n '1s/^[#]* *//p' "$p" | sed 's/|/\\|/g')
	out=$work/run-$name
	rm -rf "$out" "$out.log"
	git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
	result="" failed=""
	if ! git -C "$src" apply "$p" 2>"$out.apply"; then
		result=stillborn failed="patch does not apply"
	elif ! { cmake -S "$src" -B "$mut" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
		cmake --build "$mut" -j "$jobs" --target sandproof-ref >"$out.build" 2>&1; }; then
		result=stillborn failed="does not build"
	else
		st=0
		catalogue "$out" "$mut/sandproof-ref" || st=$?
		case $st in
		0) result=survived ;;
		1) result=killed
		   failed=$(grep -E '^(fail|error|inconclusive) ' "$out.log" | awk '{print $2}' |
			   head -n 4 | paste -sd, - | sed 's/,/, /g')
		   n=$(grep -cE '^(fail|error|inconclusive) ' "$out.log" || true)
		   [ "$n" -le 4 ] || failed="$failed (+$((n - 4)))" ;;
		*) result=harness failed="sandproof run exited $st" ;;
		esac
	fi
	case $what in
	equivalent:*) [ "$result" = survived ] && result=equivalent ;;
	esac
	case $result in killed|equivalent) ;; *) all=1 ;; esac
	echo "| \`$name\` | $what | $result | $failed |"
done
git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
exit "$all"
