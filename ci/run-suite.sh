#!/bin/sh
# ci/run-suite.sh - the main job of README.md: install dependencies, build,
# run the full scenario suite against the reference runner, write the
# results database ./sandproof-out/linux.sqlite (override the directory with
# SANDPROOF_OUT) and its reports (report.html, report.junit.xml, report.md,
# report.tap), and diff it against reports/baseline/linux.json.
# The pairs run --jobs N at once (N from ci/jobs.sh: SANDPROOF_JOBS, else
# twice the cores, at most 8; SANDPROOF_JOBS=1 runs them one by one, as
# before), the scenarios that declare `exclusive` alone.
# Exit status: 0 when every result is in its expected set and nothing
# regressed against the baseline, 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${SANDPROOF_OUT:-$here/sandproof-out}
cd "$here"
sh ci/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
./build/sandproof env >/dev/null
status=0
./build/sandproof run --runner ref --jobs "$(sh ci/jobs.sh)" --out "$out" || status=$?
sh ci/report.sh "$out" build || status=1
exit "$status"
