#!/bin/sh
# bench/suite.sh [BUILD_DIR] [RUNNERS] - wall time of the full scenario
# catalogue per runner (one `sandproof run --runner R` each, same machine,
# same catalogue), as a Markdown table on stdout.  Never a test.
#   sh bench/suite.sh build ref,bwrap,firejail,codex,srt
set -eu
build=${1:-build}
runners=${2:-ref}
sp=$(cd "$build" && pwd)/sandproof
out=$(mktemp -d /var/tmp/sandproof-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "| runner | scenarios | pass | fail | skip | unsupported | error | wall time |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for r in $(echo "$runners" | tr ',' ' '); do
	start=$(date +%s.%N)
	"$sp" run --runner "$r" --out "$out/$r" >"$out/$r.log" 2>&1 || true
	end=$(date +%s.%N)
	db=$out/$r/linux.sqlite
	c() { sqlite3 "$db" "select count(*) from result where verdict = '$1'"; }
	printf '| %s | %s | %s | %s | %s | %s | %s | %.1f s |\n' "$r" \
		"$(sqlite3 "$db" 'select count(*) from result')" "$(c pass)" "$(c fail)" "$(c skip)" \
		"$(c unsupported)" "$(c error)" "$(awk -v a="$start" -v b="$end" "BEGIN { print b - a }")"
done
