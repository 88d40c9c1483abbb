#!/bin/sh
# ci/test.sh - the test command of README.md: install dependencies, build,
# and run every ctest test (ctest -j: tests run side by side but those that
# need the machine to themselves, RUN_SERIAL in CMakeLists.txt)
#   1. as an unprivileged user (when called as root: the user
#      "sandproof-test" is created if needed and builds a copy of the
#      tree under /var/tmp), then as the calling user (root in CI) in the
#      same build: one build for both legs,
#   then (as root) the .deb (ci/deb.sh): built with cpack, installed with
#      dpkg -i, smoke and the fs area from /usr as root and unprivileged,
#      removed with dpkg -r leaving nothing behind,
#   2. under AddressSanitizer + UndefinedBehaviorSanitizer (the catalogue
#      against ref and none once, at --jobs N: the two legs above compare
#      it with --jobs 1 and run the contract adapter's pass),
#   3. the posix bring-up platform (-DSANDPROOF_PLATFORM=posix, build-posix):
#      its portable tests (ctest label "portable"),
#   4. the macos platform layer built on Linux, the posix-sim
#      (-DSANDPROOF_PLATFORM=macos, build-macos-sim): its portable tests,
#      which include the backend's plumbing through the test sandbox-exec
#      (label "macos-sim"); eight proc.* plumbing scenarios and proc.everyday_* against ref
#      through it (pass), a macOS-only escape
#      scenario (must fail: the sim confines nothing), recorded in
#      posix-sim.sqlite, never macos.sqlite,
#   5. the windows layer cross-built by mingw-w64 (ci/cross-windows.sh,
#      build-windows): its portable tests under Wine, the Wine smokes of
#      the backend (ci/wine-smoke.sh) and of the probe,
# then a bounded fuzz run of the request parser, the reparse decoder and
# the session protocol (ci/fuzz.sh, SANDPROOF_FUZZ_SECONDS per driver,
# here 20 unless set) where clang and its libFuzzer runtime are present
# (said and skipped where they are not).  Each leg prints its wall time;
# ci/README.md gives them as measured on a fresh clone.
# Exit status: 0 when all of them pass.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
t_start=$(date +%s)
t_leg=
# leg NAME: the previous leg's wall time, then NAME's header
leg() {
	now=$(date +%s)
	[ -z "$t_leg" ] || echo "   ($((now - t_leg)) s)"
	t_leg=$now
	echo "== $1"
}
leg "dependencies (ci/deps.sh)"
sh ci/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
# ctest's parallelism: most tests wait on processes, sockets and timers
# rather than compute, so one more than the cores
ctest_jobs=$((jobs + 1))
build() { # src builddir [cmake args...]
	src=$1 dir=$2
	shift 2
	cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
}
ctest_in() { # builddir [ctest args...]
	dir=$1
	shift
	(cd "$dir" && ctest --output-on-failure -j "$ctest_jobs" "$@")
}
# The Linux build's tests: the catalogue first, alone (ctest -j would leave
# a RUN_SERIAL test for last, and test_catalogue_jobs1 and the sbpl shards,
# which need its results, would then run alone after it), then every other
# test side by side, without running the catalogue's fixtures again.  Both
# run; either failing fails.
CTEST_FIRST='^(sbpl_record_clean|test_catalogue)$'
CTEST_FIXTURES='catalogue_db|sbpl_requests|sbpl_record_dir'
ctest_linux() { # builddir
	(cd "$1" && st=0 &&
		{ ctest --output-on-failure -R "$CTEST_FIRST" || st=1; } &&
		{ ctest --output-on-failure -j "$ctest_jobs" -E "$CTEST_FIRST" -FS "$CTEST_FIXTURES" ||
			st=1; } && [ "$st" -eq 0 ])
}

if [ "$(id -u)" -eq 0 ]; then
	. ci/unpriv.sh
	unpriv_copy "$here"
	main_build=$unpriv_work/build
	leg "build (as $unpriv_user, for both legs)"
	unpriv_sh "
		set -e
		cmake -S '$unpriv_work' -B '$main_build' -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF >/dev/null
		cmake --build '$main_build' -j $jobs >/dev/null"
	leg "tests as unprivileged user $unpriv_user"
	unpriv_sh "cd '$main_build' && st=0 &&
		{ ctest --output-on-failure -R '$CTEST_FIRST' || st=1; } &&
		{ ctest --output-on-failure -j $ctest_jobs -E '$CTEST_FIRST' -FS '$CTEST_FIXTURES' ||
			st=1; } && [ \$st -eq 0 ]"
	leg "tests as $(id -un) (the same build)"
	ctest_linux "$main_build"
	leg "the .deb: made by cpack, dpkg -i, run from /usr as root and unprivileged, dpkg -r"
	sh ci/deb.sh "$main_build"
else
	leg "build"
	build "$here" "$here/build" -DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF
	leg "tests as $(id -un)"
	ctest_linux "$here/build"
	echo "== the .deb: not tested (dpkg -i needs root)"
fi

leg "tests under ASan + UBSan"
build "$here" "$here/build-sanitize" -DSANDPROOF_ASAN=ON -DSANDPROOF_UBSAN=ON
SANDPROOF_CATALOGUE_JOBS1=0 SANDPROOF_CATALOGUE_CONTRACT=0 ctest_linux "$here/build-sanitize"

# The other platforms' layers and the fuzz run: builds and tests with
# nothing timed against the machine's load (no race, no sandbox of this
# host's), so the four legs run side by side, each into its own log,
# printed in order as it ended with its wall time; any leg failing fails.
leg_posix() {
	cmake -S "$here" -B "$here/build-posix" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSANDPROOF_PLATFORM=posix >/dev/null
	cmake --build "$here/build-posix" -j "$jobs" >/dev/null
	ctest_in "$here/build-posix" -L portable
}

leg_macos_sim() {
	cmake -S "$here" -B "$here/build-macos-sim" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSANDPROOF_PLATFORM=macos >/dev/null
	cmake --build "$here/build-macos-sim" -j "$jobs" >/dev/null
	ctest_in "$here/build-macos-sim" -L portable
	simout=$(mktemp -d "${TMPDIR:-/tmp}/sandproof-sim.XXXXXX")
	# The backend's plumbing end to end (exit codes, output, stdin, signals,
	# the everyday commands with reads unrestricted and restricted: the
	# canary and the restricted profile's argv), judged by the macOS
	# expectations: these pass through a launcher that confines nothing.
	for s in proc.env_exact proc.exit_code_exact proc.exit_127_not_notfound \
		proc.output_binary_lossless proc.output_truncated proc.stdin_delivered \
		proc.signal_propagates proc.cancel_signals 'proc.everyday_*'; do
		"$here/build-macos-sim/sandproof" run --runner ref --out "$simout" --filter "$s" \
			>"$simout/plumbing.log" || { cat "$simout/plumbing.log"; rm -rf "$simout"; return 1; }
	done
	# A macOS-only scenario must FAIL there: the sim's sandbox-exec confines
	# nothing, and a hard link giving .git/config a writable name is an escape.
	"$here/build-macos-sim/sandproof" run --runner ref --out "$simout" \
		--filter meta.seatbelt_hardlink_protected >"$simout/escape.log" || true
	grep -q '^fail  *meta.seatbelt_hardlink_protected .*impact: escape' "$simout/escape.log" ||
		{ cat "$simout/escape.log"; echo "the unconfined sim did not fail a macOS-only scenario"
		  rm -rf "$simout"; return 1; }
	# A simulation is never recorded as macOS.
	[ -f "$simout/posix-sim.sqlite" ] && [ ! -e "$simout/macos.sqlite" ] ||
		{ echo "posix-sim results not in posix-sim.sqlite"; rm -rf "$simout"; return 1; }
	rm -rf "$simout"
}

# Lua, sqlite and cJSON from Debian's source packages, the portable tests
# (plan, path rules, compat layer, sandproof-ref.exe refusing to run under
# Wine) as .exe under Wine; then the backend's plumbing (job objects, the
# handle list, quoting, the DACL journal) and the probe's.  Wine results are
# plumbing only, never Windows: nothing here is recorded as windows.
# The scripts below skip (exit 0) without wine, for a developer's machine;
# here its absence is a failure, never a leg skipped and counted as passed.
leg_windows() {
	command -v wine >/dev/null 2>&1 && command -v wineserver >/dev/null 2>&1 || {
		echo "ci/test.sh: wine is missing after ci/deps.sh (Debian: wine, wine64): the Wine legs cannot run"
		return 1
	}
	sh ci/cross-windows.sh "$here/build-windows" &&
		sh ci/wine-smoke.sh &&
		sh ci/probe-windows.sh --smoke "$here/build-probe-windows"
}

leg_fuzz() {
	fuzz_status=0
	SANDPROOF_FUZZ_SECONDS=${SANDPROOF_FUZZ_SECONDS:-20} sh ci/fuzz.sh || fuzz_status=$?
	[ "$fuzz_status" -eq 0 ] || [ "$fuzz_status" -eq 77 ]
}

leg "side by side: the posix bring-up platform's portable tests; the macos layer as the posix-sim (portable and macos-sim tests); the windows layer cross-built by mingw-w64 (its tests and smokes under Wine); the bounded fuzz run"
side=$(mktemp -d "${TMPDIR:-/tmp}/sandproof-legs.XXXXXX")
for l in posix macos_sim windows fuzz; do
	(
		t0=$(date +%s)
		set +e
		# errexit inside the leg (its own subshell, not a condition)
		(set -e; "leg_$l") >"$side/$l.log" 2>&1
		rc=$?
		echo "$rc $(($(date +%s) - t0))" >"$side/$l.rc"
	) &
done
wait
failed=
for l in posix macos_sim windows fuzz; do
	read -r rc secs <"$side/$l.rc" || { rc=1 secs=?; }
	echo "-- $l: exit $rc, $secs s"
	cat "$side/$l.log"
	[ "$rc" -eq 0 ] || failed="$failed $l"
done
rm -rf "$side"
[ -z "$failed" ] || { echo "ci/test.sh: failed:$failed" >&2; exit 1; }
leg "done: all passed in $(($(date +%s) - t_start)) s"
