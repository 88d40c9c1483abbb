#!/bin/sh
# bench/explore_rate.sh [PROGRAMS] [ROUNDS] [RUNNER] - programs per second of
# `sandproof explore` against RUNNER (default ref), PROGRAMS each (default
# 600, seed 1, no shrinking), in three configurations taken in turn ROUNDS
# times (default 3) so that the machine's load falls on each alike: one
# program per launch (--batch 1), batches of 8 (the default), batches of 8
# in two worker processes (--jobs 2).  Prints every run's summary line and
# each configuration's median rate.  Never a test: rates depend on the
# machine and its load.  Results: bench/EXPLORE.md.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
sp=${SANDPROOF:-$here/build/sandproof}
n=${1:-600} rounds=${2:-3} runner=${3:-ref}
tmp=$(mktemp -d /tmp/sandproof-bench-explore.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
	for cfg in "--batch 1" "--batch 8" "--batch 8 --jobs 2"; do
		# shellcheck disable=SC2086 # cfg is words
		"$sp" explore --runner "$runner" --budget "$n" --seed 1 --no-shrink $cfg \
			--out "$tmp/o" >"$tmp/log" 2>&1
		line=$(grep "^explore $runner:" "$tmp/log")
		echo "$cfg | $line"
		echo "$cfg|$(echo "$line" | sed -n 's/.*(\([0-9.]*\) programs\/s).*/\1/p')" >>"$tmp/rates"
		rm -rf "$tmp/o"
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for cfg in "--batch 1" "--batch 8" "--batch 8 --jobs 2"; do
	med=$(grep -F -e "$cfg|" "$tmp/rates" | cut -d'|' -f2 | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo "median programs/s, $cfg: $med"
done
