#!/bin/sh
# ci/smoke.sh - build and run `sandproof smoke` on this machine: host
# prerequisites and the most telling properties of every runner found.
# Exit status: that of sandproof smoke (0 holds, 1 a property fails, 3 the
# host cannot enforce the contract).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
sh ci/deps.sh
cmake -S . -B build -DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
exec ./build/sandproof smoke --out "${SANDPROOF_OUT:-$here/sandproof-out}"
