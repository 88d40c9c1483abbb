#!/bin/sh
# ci/fuzz.sh - a bounded libFuzzer run of the request fuzzers, the
# reparse-buffer decoder's and the session protocol's (tests/fuzz),
# under AddressSanitizer and UndefinedBehaviorSanitizer.  Needs clang with
# its libFuzzer runtime (Debian: clang, libclang-rt-dev); without them it
# says so and exits 77 (skip).  Each driver runs for SANDPROOF_FUZZ_SECONDS
# (default 60) seconds from a scratch copy of the committed corpus; new
# inputs it finds stay in the scratch copy (tests/fuzz/README.md says how
# to keep one).  Exit status: 0 no crash or violated property, 1 a finding
# (the input is left in $out/crash-* and named), 77 skipped.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
secs=${SANDPROOF_FUZZ_SECONDS:-60}
out=${SANDPROOF_FUZZ_OUT:-$here/build-fuzz}

if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz: skip: clang not installed"
	exit 77
fi
if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
	clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	echo "fuzz: skip: clang cannot link libFuzzer (install libclang-rt-dev)"
	exit 77
fi
CC=clang cmake -S "$here" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DSANDPROOF_FUZZ=ON -DSANDPROOF_ASAN=ON -DSANDPROOF_UBSAN=ON >/dev/null
cmake --build "$out" --target fuzz_request fuzz_plain fuzz_reparse fuzz_serve fuzz_serve_ops -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
status=0
for fz in fuzz_request fuzz_plain fuzz_reparse fuzz_serve fuzz_serve_ops; do
	case $fz in
	fuzz_reparse) seeds=reparse ;;
	fuzz_serve) seeds=serve ;;
	fuzz_serve_ops) seeds=serve_ops ;;
	*) seeds=request ;;
	esac
	corpus="$out/corpus-$fz"
	rm -rf "$corpus"
	mkdir -p "$corpus"
	cp "$here"/tests/fuzz/corpus/$seeds/* "$corpus"/
	echo "== $fz: $secs s"
	if ! (cd "$out" && "./$fz" -max_total_time="$secs" -max_len=4096 -timeout=10 \
		-print_final_stats=1 "$corpus" 2>"$out/$fz.log"); then
		tail -n 30 "$out/$fz.log"
		echo "fuzz: $fz found an input that breaks it: $(ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null | tr '\n' ' ')"
		status=1
	else
		grep -E "^stat::(number_of_executed_units|new_units_added)" "$out/$fz.log" | tr '\n' ' '
		echo
	fi
done
exit "$status"
