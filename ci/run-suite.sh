#!/bin/sh
# ci/run-suite.sh - the main job of README.md: install dependencies, build,
# and run the full scenario suite against the reference runner, writing the
# results database to ./sandproof-out/linux.sqlite (override the directory
# with SANDPROOF_OUT).  Exit status: that of `sandproof run` (0: every
# result in its expected set).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${SANDPROOF_OUT:-$here/sandproof-out}
cd "$here"
sh ci/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
./build/sandproof env >/dev/null
exec ./build/sandproof run --runner ref --out "$out"
