#!/bin/sh
# ci/jobs.sh - how many pairs the main job runs at once (sandproof run
# --jobs N): SANDPROOF_JOBS when set, else twice the cores this process
# may use, at most 8.  Most pairs spend their time waiting (a launch's
# setup, a sleep, a session's clamp), so two per core keep both cores
# busy; the CPU-heavy hold sweeps and the scenarios that need the machine
# to themselves (`exclusive`, docs/SCENARIOS.md) set the limit beyond that
# (bench/RESULTS.md, "The catalogue in parallel").
set -eu
if [ -n "${SANDPROOF_JOBS:-}" ]; then
	echo "$SANDPROOF_JOBS"
	exit 0
fi
n=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
n=$((n * 2))
[ "$n" -le 8 ] || n=8
echo "$n"
