#!/bin/sh
# bench/explore_pair.sh OLD NEW [PROGRAMS] [ROUNDS] [-- ARGS...] - paired
# runs of two `sandproof` builds' explore against ref: the same PROGRAMS
# (default 2000) of seed 3, no shrinking, OLD then NEW then NEW then OLD
# ... (ROUNDS pairs, default 3, the order alternating so that a change of
# the machine's load falls on both alike).  ARGS go to both runs (e.g.
# --jobs 2; --runner R replaces ref), OLD_ARGS and NEW_ARGS (words) to one
# side only: OLD and NEW may be the same build (e.g. NEW_ARGS="--batch 16").  Per run: the explore's own
# programs/s (shrinking excluded), the wall-clock programs/s of the whole
# process, and the CPU time per program (user + system of the explore and
# every process it reaped: the runner, the sandbox's processes, labs), the
# 1-minute load average before it, and its launches.  Then each build's
# medians and NEW/OLD.  CPU per program is the figure the load moves least.
# Never a test: rates depend on the machine and its load.  Results:
# bench/EXPLORE.md.  Needs GNU time (/usr/bin/time, Debian package time).
set -u
old=$1 new=$2
shift 2
n=2000 rounds=3
[ $# -gt 0 ] && [ "$1" != "--" ] && { n=$1; shift; }
[ $# -gt 0 ] && [ "$1" != "--" ] && { rounds=$1; shift; }
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
runner=ref
case " $* " in *" --runner "*) runner=$(echo " $* " | sed 's/.* --runner \([^ ]*\) .*/\1/') ;; *) set -- --runner ref "$@" ;; esac
tmp=$(mktemp -d /tmp/sandproof-bench-pair.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
one() { # LABEL BINARY SIDE_ARGS ARGS...
	label=$1 bin=$2 side=$3
	shift 3
	load=$(cut -d' ' -f1 /proc/loadavg)
	# shellcheck disable=SC2086 # side is words
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" explore "$@" $side --budget "$n" --seed 3 \
		--no-shrink --out "$tmp/o" >"$tmp/log" 2>&1
	line=$(grep "^explore $runner:" "$tmp/log")
	rate=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) programs\/s).*/\1/p')
	launches=$(echo "$line" | sed -n 's/.*; \([0-9]*\) launches.*/\1/p')
	# (GNU time puts "Command exited with non-zero status 1" first when
	# explore found a violation)
	read -r wall user sys <<EOT
$(tail -n 1 "$tmp/time")
EOT
	echo "$label $rate $wall $user $sys $load $launches" | awk -v n="$n" '{
		printf "%-4s %7.1f programs/s (explore), %7.1f programs/s (wall %6.1f s), CPU %5.2f ms/program (user %.1f s, sys %.1f s), load %s, %s launches\n",
			$1, $2, n / $3, $3, ($4 + $5) * 1000 / n, $4, $5, $6, $7 }' | tee -a "$tmp/rows"
	[ -n "$line" ] || { echo "no summary line; the log ends:"; tail -5 "$tmp/log"; }
	rm -rf "$tmp/o"
}
for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		one old "$old" "${OLD_ARGS:-}" "$@"; one new "$new" "${NEW_ARGS:-}" "$@"
	else
		one new "$new" "${NEW_ARGS:-}" "$@"; one old "$old" "${OLD_ARGS:-}" "$@"
	fi
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for b in old new; do
	r=$(grep "^$b " "$tmp/rows" | awk '{ print $2 }' | med)
	w=$(grep "^$b " "$tmp/rows" | sed 's/.*programs\/s (explore), *\([0-9.]*\).*/\1/' | med)
	c=$(grep "^$b " "$tmp/rows" | sed 's/.*CPU *\([0-9.]*\) ms.*/\1/' | med)
	echo "median $b: $r programs/s (explore), $w programs/s (wall), $c ms CPU/program"
	eval "m_$b=\"$r $w $c\""
done
# shellcheck disable=SC2154 # m_old and m_new are set by the eval above
echo "$m_old $m_new" | awk '{ printf "new/old: %.2fx programs/s (explore), %.2fx (wall), %.2fx CPU/program\n", $4 / $1, $5 / $2, $6 / $3 }'
