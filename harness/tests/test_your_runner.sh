#!/bin/sh
# test_your_runner.sh SANDPROOF - docs/YOUR-RUNNER.md as a user follows it:
# every ```sh block of the page, in order, in one shell (set -eu), in a
# fresh directory, with the built sandproof first on the PATH and
# SANDPROOF_SRC the source tree; then what the page says happened:
#   - the example runner ran a command by hand and refused a bad request;
#   - smoke, the matrix (ref beside bwrap-runner), the three reports and
#     the baseline were made;
#   - the gate passed on the runner as it is and failed on the broken one;
#   - the page's shell blocks are all there (a block dropped from the page
#     is a command no test runs any more).
# Also: examples/runners/bwrap-runner stays within 100 lines.
set -u
sp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
src=$(cd "$here/../.." && pwd)
doc=$src/docs/YOUR-RUNNER.md
sc_tmp your-runner

lines=$(wc -l <"$src/examples/runners/bwrap-runner")
if [ "$lines" -le 100 ]; then ok "bwrap-runner is $lines lines (at most 100)"; else notok "bwrap-runner is $lines lines"; fi
for dep in python3 bwrap; do
	command -v "$dep" >/dev/null || { echo "1..0 # SKIP $dep not installed"; exit 77; }
done

# the page's shell blocks, in order, into one script
awk '/^```sh$/ { on = 1; n++; next } /^```/ { on = 0 } on { print }
     END { print "# blocks: " n > "/dev/stderr" }' "$doc" >"$tmp/page.sh" 2>"$tmp/blocks"
blocks=$(sed -n 's/^# blocks: //p' "$tmp/blocks")
if [ "$blocks" -eq 8 ]; then ok "the page has its 8 shell blocks"; else notok "the page has $blocks shell blocks (expected 8: update this test with the page)"; fi
mkdir "$tmp/user"
(cd "$tmp/user" && env PATH="$(dirname "$sp"):$PATH" SANDPROOF_SRC="$src" sh -eu "$tmp/page.sh") \
	>"$tmp/page.log" 2>&1
st=$?
if [ $st -eq 0 ]; then ok "every command of the page ran (exit 0)"; else notok "the page's commands stopped with exit $st"; fi
box=$tmp/user/mybox
expect_log() { # PATTERN WHAT
	if grep -qE -- "$1" "$tmp/page.log"; then ok "$2"; else notok "$2: /$1/ not in the page's output"; fi
}
expect_log '"kind": "success"' "the runner ran the command by hand"
expect_log '"stdout": "hello\\n"' "and captured its output"
expect_log '^bwrap-runner: bogus: unknown field' "a bad request is refused naming its field"
expect_log '^refused, exit 2$' "with exit 2"
expect_log '^bwrap-runner: confines writes: yes; network deny: yes; protected metadata: NO' "smoke says what held and what did not"
expect_log '^smoke: a property does not hold \(exit 1\)$' "smoke exits 1"
expect_log '^pass +fs\.outside_sibling +bwrap-runner ' "the matrix row: bwrap-runner confines a write outside"
expect_log '^pass +fs\.outside_sibling +ref ' "beside ref"
for f in out/linux.sqlite report.html summary.md junit.xml baseline.json gate.sh ci-summary.md; do
	if [ -s "$box/$f" ]; then ok "$f made"; else notok "$f missing"; fi
done
expect_log '^gate: no regression$' "the gate passes on the runner as it is"
expect_log '^gate: regression caught \(exit 1\)$' "the gate fails on the broken runner"
expect_log 'fs\.read_only_subpath' "naming the scenario that got worse"
if cmp -s "$box/bwrap-runner" "$src/examples/runners/bwrap-runner"; then ok "the page restored the runner"
else notok "the runner was not restored"; fi
tap_end "$tmp/page.log"
