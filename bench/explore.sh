#!/bin/sh
# bench/explore.sh [SECONDS] [RUNNER...] - `sandproof explore` against each
# runner (default: none ref bwrap bwrap_naive codex srt) for SECONDS each
# (default 600, shrinking included), seed 11, into ./explore-bench/<runner>;
# prints each run's summary line (programs/s, violations, coverage) and the
# distinct shrunk programs; EXPLORE_ARGS adds options (e.g. "--jobs 2").
# Never a test: the rates depend on the machine's load.  Results: bench/EXPLORE.md.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
sp=${SANDPROOF:-$here/build/sandproof}
secs=${1:-600}
[ $# -gt 0 ] && shift
runners=${*:-none ref bwrap bwrap_naive codex srt}
mkdir -p explore-bench
for r in $runners; do
	out=explore-bench/$r
	# shellcheck disable=SC2086 # EXPLORE_ARGS is words (e.g. "--jobs 2")
	"$sp" explore --runner "$r" --time "$secs" --seed 11 ${EXPLORE_ARGS:-} --out "$out" >"$out.log" 2>&1
	echo "$r: exit $? $(tail -1 "$out.log")"
	grep "^  shrunk to" "$out.log" | sed 's/^  shrunk to \([0-9]*\) op(s) in [0-9]* runs: { seed = [0-9]*, /  \1 op(s): { /' | sort | uniq -c
done
