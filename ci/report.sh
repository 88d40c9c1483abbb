#!/bin/sh
# ci/report.sh OUT [BUILD] - render the reports of OUT/linux.sqlite next to
# it (HTML, JUnit, Markdown, TAP) and compare it with the committed baseline.
# Exit status: 0, or 1 when the baseline diff finds a regression.
set -eu
out=$1
build=${2:-build}
db=$out/linux.sqlite
sp=$build/sandproof
"$sp" report "$db" --format html -o "$out/report.html"
"$sp" report "$db" --format junit -o "$out/report.junit.xml"
"$sp" report "$db" --format markdown -o "$out/report.md"
"$sp" report "$db" --format tap -o "$out/report.tap"
echo "reports: $out/report.html report.junit.xml report.md report.tap"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/reports/baseline/linux.json" ]; then
	"$sp" diff --baseline "$here/reports/baseline/linux.json" "$db" --runner ref
fi
