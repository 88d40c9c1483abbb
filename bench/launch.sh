#!/bin/sh
# bench/launch.sh - launch cost of sandproof-ref against bubblewrap and a bare
# /bin/true, in one hyperfine run (whole-process wall time; never a test).
#
#   sh bench/launch.sh [BUILD_DIR]     (default ./build; needs hyperfine, bwrap)
#
# Policy for both runners: the whole filesystem read-only, one writable
# workspace, private /tmp, /dev and /proc, all namespaces (network deny).
# Two workspaces: "repo" has every protected name present (.git/hooks,
# .git/config, .agents, .zero: nothing to watch), "bare" has none of them
# (sandproof-ref watches for their creation with inotify).
set -eu
build=${1:-build}
ref=$(cd "$build" && pwd)/sandproof-ref
out=${SANDPROOF_BENCH_OUT:-bench/launch-results.md}
for t in hyperfine bwrap; do
	command -v "$t" >/dev/null || { echo "bench/launch.sh: $t not installed" >&2; exit 2; }
done
top=$(mktemp -d /tmp/sp-bench.XXXXXX)
trap 'rm -rf "$top"' EXIT
repo=$top/repo bare=$top/bare
mkdir -p "$repo/.git/hooks" "$repo/.agents" "$repo/.zero" "$bare"
touch "$repo/.git/config"
bw() { echo "bwrap --ro-bind / / --tmpfs /tmp --bind $1 $1 --dev /dev --proc /proc --unshare-all --die-with-parent --new-session --chdir $1 /bin/true"; }
hyperfine -N --warmup 10 --runs "${RUNS:-200}" --export-markdown "$out" \
	-n true /bin/true \
	-n "sandproof-ref (repo)" "$ref exec --write $repo --cwd $repo -- /bin/true" \
	-n "bwrap (repo)" "$(bw "$repo")" \
	-n "sandproof-ref (bare)" "$ref exec --write $bare --cwd $bare -- /bin/true" \
	-n "bwrap (bare)" "$(bw "$bare")"
echo "results: $out"
