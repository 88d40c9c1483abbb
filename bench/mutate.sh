#!/bin/sh
# bench/mutate.sh [--filter GLOB] [--jobs N] [--full] [PATCH...] - the mutation
# audit: does the catalogue notice when sandproof-ref is broken?
#
# Each bench/mutants/*.patch (or each PATCH named) is a small realistic bug
# in ref/, platforms/ or util/, made against HEAD (the patches are committed,
# so commit before an audit).  Line 1 of a patch says what it breaks; an
# optional line 2, "targets: GLOB...", names the scenario ids (sandproof run
# --filter globs) expected to notice it; an optional "env: K=V ..." (line 2
# or 3) is set for every catalogue run of that mutant, its clean rechecks
# included.  For each: a scratch worktree of
# HEAD gets the patch, sandproof-ref is built from it, and the catalogue runs
# against that binary with the harness, probe and scenarios of the clean
# build (SANDPROOF_REF points the ref adapter at the mutant): the targets
# first, and only when none of them notices, the whole catalogue (or
# --filter); --full runs the whole catalogue for every mutant.  A mutant is
#   killed      when some scenario's outcome left its expected set (fail) or
#               the scenario could not conclude because of the mutant
#               (error, e.g. the sentinel never came: the mutant refused to
#               run the command), did so again when rerun alone against the
#               mutant, and stays in its expected set when rerun alone
#               against the clean binary (pass, or inconclusive: a race
#               below its power; a kill is never a flake of a loaded machine);
#   unclear     when the only non-passing results are inconclusive (a race
#               below its power) or failed against the clean binary too:
#               nothing was noticed for sure; rerun it;
#   survived    when every result stayed in its expected set, but for
#               failures that the mutant did not reproduce (listed);
#   equivalent  a survivor whose patch says, on line 1, "equivalent: why"
#               (a mutant shown not to change behaviour);
#   stillborn   when the patch does not apply or the mutant does not build
#               (the patch is stale: regenerate it);
#   harness     when the run itself failed (exit 2 or 3).
# The clean binary runs the whole catalogue (or --filter) first, once per
# commit (kept in build-mutate/run-clean.ok); a scenario that does not pass
# there is rerun alone, and a clean run that still fails stops the audit
# (nothing can be concluded).  Builds and runs are niced
# (SANDPROOF_MUTATE_NICE, default 10).
#
# Output: a Markdown table on stdout (for bench/RESULTS.md), then a totals
# line; per mutant, its logs and databases under build-mutate/, and one
# progress line on stderr.  Never a test.
# Exit 0 when every mutant is killed or equivalent, 1 otherwise, 2 usage.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
work=${SANDPROOF_MUTATE_DIR:-$here/build-mutate}
nice="nice -n ${SANDPROOF_MUTATE_NICE:-10}"
filter="" full=0
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	--filter) filter=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--full) full=1; shift ;;
	-h|--help) sed -n '2,43p' "$0"; exit 0 ;;
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
head=$(git -C "$here" rev-parse HEAD)
if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
	rm -rf "$src"
	git -C "$here" worktree add --detach -q "$src" HEAD
fi
git -C "$src" checkout -q --detach "$head"
git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
$nice cmake -S "$src" -B "$clean" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
$nice cmake --build "$clean" -j "$jobs" --target sandproof sandproof-ref sandproof-probe >/dev/null

# catalogue OUT REF [GLOB]: one sandproof run (with the mutant's env: line,
# $menv, when it has one); its exit status.
menv=""
catalogue() {
	rm -rf "$1" "$1.log"
	env $menv SANDPROOF_REF="$2" $nice "$clean/sandproof" run --runner ref ${3:+--filter "$3"} \
		--out "$1" >"$1.log" 2>&1
}

# The ids of a log's results with verdict $2 ($1: the log).
verdict_ids() { grep -E "^$2 " "$1" | awk '{print $2}' || true; }

key="$head ${filter:-all}"
if [ "$(cat "$work/run-clean.ok" 2>/dev/null)" != "$key" ]; then
	rm -f "$work/run-clean.ok"
	st=0
	catalogue "$work/run-clean" "$clean/sandproof-ref" "$filter" || st=$?
	if [ "$st" -eq 1 ]; then
		# a loaded machine may fail a timing-bound scenario once: each
		# failure is rerun alone, and must pass then
		st=0
		for id in $(verdict_ids "$work/run-clean.log" fail) $(verdict_ids "$work/run-clean.log" error) \
			$(verdict_ids "$work/run-clean.log" inconclusive); do
			catalogue "$work/run-clean-again" "$clean/sandproof-ref" "$id" || st=$?
			echo "mutate: clean run: $id did not pass; alone: exit $st" >&2
		done
	fi
	if [ "$st" -ne 0 ]; then
		echo "mutate: the clean build does not pass the catalogue (exit $st); see $work/run-clean.log" >&2
		exit 1
	fi
	echo "$key" >"$work/run-clean.ok"
fi

# judge OUT: sets result and noticed from OUT.log (a run that exited 1).
# A failed or errored scenario counts only if it does so again when rerun
# alone against the mutant, and passes when rerun alone against the clean
# binary: on a loaded machine a race or a timing-bound scenario may fail
# once by chance, and that is never a kill.
judge() {
	noticed="" result=survived
	for id in $(verdict_ids "$1.log" fail) $(verdict_ids "$1.log" error); do
		again=0
		catalogue "$1-again" "$mut/sandproof-ref" "$id" || again=$?
		if [ "$again" -ne 1 ] || ! grep -qE '^(fail|error) ' "$1-again.log"; then
			noticed="$noticed${noticed:+, }$id (not reproduced)"
		elif catalogue "$1-recheck" "$clean/sandproof-ref" "$id" ||
			! grep -qE '^(fail|error) ' "$1-recheck.log"; then
			result=killed
			noticed="$noticed${noticed:+, }$id"
		else
			[ "$result" = killed ] || result=unclear
			noticed="$noticed${noticed:+, }$id (fails clean too)"
		fi
	done
	for id in $(verdict_ids "$1.log" inconclusive); do
		[ "$result" = killed ] || result=unclear
		noticed="$noticed${noticed:+, }$id (inconclusive)"
	done
}

# run_mutant NAME PATCH: sets result and noticed.
run_mutant() {
	out=$work/run-$1
	targets=$(sed -n '2s/^targets: *//p' "$2")
	# "env: K=V ..." (line 2 or 3): the catalogue runs of this mutant and
	# their clean rechecks get it (a mutant of a mechanism a variable picks)
	menv=$(sed -n '2,3s/^env: *//p' "$2")
	if [ "$full" = 1 ] || [ -n "$filter" ]; then targets=""; fi
	for g in $targets; do
		st=0
		catalogue "$out-t" "$mut/sandproof-ref" "$g" || st=$?
		case $st in
		0) ;;
		1) judge "$out-t"
		   [ "$result" = killed ] && return 0 ;;
		*) result=harness noticed="sandproof run --filter $g exited $st"; return 0 ;;
		esac
	done
	st=0
	catalogue "$out" "$mut/sandproof-ref" "$filter" || st=$?
	case $st in
	0) result=survived noticed="" ;;
	1) judge "$out" ;;
	*) result=harness noticed="sandproof run exited $st" ;;
	esac
}

echo "| mutant | area | what it breaks | verdict | noticed by | time |"
echo "|---|---|---|---|---|---:|"
all=0
n_killed=0 n_equiv=0 n_survived=0 n_other=0
for p in "$@"; do
	name=$(basename "$p" .patch)
	area=$(echo "$name" | cut -d- -f2)
	what=$(sed -n '1s/^[#]* *//p' "$p" | sed 's/|/\\|/g')
	git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
	result="" noticed="" t0=$(date +%s)
	if ! git -C "$src" apply "$p" 2>"$work/run-$name.apply"; then
		result=stillborn noticed="patch does not apply"
	elif ! { $nice cmake -S "$src" -B "$mut" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
		$nice cmake --build "$mut" -j "$jobs" --target sandproof-ref >"$work/run-$name.build" 2>&1; }; then
		result=stillborn noticed="does not build"
	else
		run_mutant "$name" "$p"
	fi
	case $what in
	equivalent:*) [ "$result" = survived ] && result=equivalent ;;
	esac
	case $result in
	killed) n_killed=$((n_killed + 1)) ;;
	equivalent) n_equiv=$((n_equiv + 1)) ;;
	survived) n_survived=$((n_survived + 1)); all=1 ;;
	*) n_other=$((n_other + 1)); all=1 ;;
	esac
	t=$(($(date +%s) - t0))
	echo "| \`$name\` | $area | $what | $result | $noticed | $t s |"
	echo "mutate: $name: $result in $t s" >&2
done
git -C "$src" checkout -q -- . && git -C "$src" clean -qfd
echo
echo "Totals: $# mutants; $n_killed killed, $n_equiv equivalent, $n_survived survived, $n_other other (unclear, stillborn, harness)."
exit "$all"
