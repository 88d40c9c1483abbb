#!/bin/sh
# ci/run-suite.sh - the main job of README.md: install dependencies, build,
# and run the full suite against the reference runner, writing results to
# ./sandproof-out (override with SANDPROOF_OUT).
#
# Until the scenario harness lands (issue 5) the suite is the reference
# runner's own contract tests; their results are written as JUnit XML
# (sandproof-out/linux-ref.junit.xml) and a plain log.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${SANDPROOF_OUT:-$here/sandproof-out}
cd "$here"
sh ci/deps.sh
mkdir -p "$out"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
status=0
(cd build && ctest --output-on-failure --output-junit "$out/linux-ref.junit.xml") \
	>"$out/linux-ref.log" 2>&1 || status=$?
tail -n 3 "$out/linux-ref.log"
echo "results: $out/linux-ref.junit.xml, $out/linux-ref.log"
exit "$status"
