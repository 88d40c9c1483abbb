#!/bin/sh
# bench/jobs.sh - the main job (`sh ci/run-suite.sh`) at each --jobs N of
# JOBS (default "1 N", N from ci/jobs.sh), in pairs: RUNS rounds (default 3),
# each running every N once, in turn, so a round's runs share the machine's
# load.  Per run: wall time, the CPU time (user + system) of the job and
# everything it waited for, the 1-minute load average before it, the
# verdicts; then, per race scenario (a stated power), the attempts,
# windows hit and minimum of every run.  Markdown on stdout.  Never a test.
#   RUNS=3 JOBS="1 4" [KEEP=DIR] sh bench/jobs.sh
# The tree must be built (run-suite.sh builds it; the first run pays that).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
jobs=${JOBS:-"1 $(sh "$here/ci/jobs.sh")"}
# KEEP=DIR keeps every run's database, log and reports there
if [ -n "${KEEP:-}" ]; then
	out=$KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d /var/tmp/sandproof-bench-jobs.XXXXXX)
	trap 'rm -rf "$out"' EXIT
fi
cd "$here"
SANDPROOF_JOBS=1 sh ci/run-suite.sh >/dev/null 2>&1 || true # build, warm caches
echo "| round | --jobs | wall | CPU (user + sys) | load before | verdicts |"
echo "|---:|---:|---:|---:|---:|---|"
for r in $(seq 1 "$runs"); do
	for n in $jobs; do
		d=$out/r$r-j$n
		load=$(cut -d' ' -f1 /proc/loadavg)
		SANDPROOF_JOBS=$n SANDPROOF_OUT=$d /usr/bin/time -f '%e %U %S' -o "$d.time" \
			sh ci/run-suite.sh >"$d.log" 2>&1 || true
		# the last line: GNU time says first when the job exited non-zero
		read -r wall user sys <<EOF
$(tail -n 1 "$d.time")
EOF
		printf '| %s | %s | %.1f s | %.1f s | %s | %s |\n' "$r" "$n" "$wall" \
			"$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$load" \
			"$(grep -aE '^[0-9]+ passed' "$d.log" | sed 's/ (.*//')"
	done
done
echo
echo "Results other than pass and unsupported, per run:"
echo
for d in "$out"/r*-j*/; do
	sqlite3 "$d/linux.sqlite" "select '- $(basename "$d"): ' || scenario_id || ' ' || verdict || ': ' ||
		coalesce(reason, observed, '') from result where verdict not in ('pass', 'unsupported')"
done
echo
echo "Race power (attempts / windows hit / minimum) per run, r<round>-j<N>:"
echo
printf '| scenario |'
for d in "$out"/r*-j*/; do printf ' %s |' "$(basename "$d")"; done
echo
printf '|---|'
for d in "$out"/r*-j*/; do printf -- '---|'; done
echo
first=$(ls -d "$out"/r*-j*/ | head -n 1)
for s in $(sqlite3 "$first/linux.sqlite" "select scenario_id from result where min_windows > 0 order by 1"); do
	printf '| %s |' "$s"
	for d in "$out"/r*-j*/; do
		printf ' %s |' "$(sqlite3 "$d/linux.sqlite" "select attempts || ' / ' || coalesce(windows_hit, '-') || ' / ' ||
			coalesce(min_windows, '-') || case verdict when 'pass' then '' else ' ' || verdict end
			from result where scenario_id = '$s'")"
	done
	echo
done
