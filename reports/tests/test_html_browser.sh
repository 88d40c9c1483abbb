#!/bin/sh
# test_html_browser.sh SANDPROOF ARTIFACT_DIR - the HTML report in a real
# browser: a small run against ref and none is rendered, loaded in headless
# Chromium, and checked: no console error, the matrix holds one cell per
# scenario x runner, the impact filter (#impact=escape) dims every cell
# but the escapes, and a screenshot is kept in ARTIFACT_DIR.
# Exit 77 (ctest: skipped) when Chromium is not installed.
set -u
sp=$1
art=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: chromium not installed (ci/deps.sh installs it)"
	exit 77
fi
tmp=$(mktemp -d /tmp/sandproof-html.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$art"
n=0 pass=0 fail=0
check() { n=$((n + 1)); if eval "$1"; then pass=$((pass + 1)); echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi; }

"$sp" run --runner ref,none --filter 'meta.*' --out "$tmp/out" >/dev/null 2>&1
"$sp" report "$tmp/out/linux.sqlite" --format html -o "$tmp/report.html"
check '[ -s "$tmp/report.html" ]' "report rendered"
scenarios=$("$sp" list --filter 'meta.*' | wc -l)
want=$((scenarios * 2))
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$tmp/profile --enable-logging=stderr --v=0"
# shellcheck disable=SC2086
timeout 60 "$browser" $flags --virtual-time-budget=2000 --dump-dom "file://$tmp/report.html" \
	>"$tmp/dom.html" 2>"$tmp/console.log"
cells=$(grep -o '<td[^>]*class="cell' "$tmp/dom.html" | wc -l)
check '[ "$cells" -eq "$want" ]' "the matrix holds $want cells ($scenarios scenarios x 2 runners): $cells"
check 'grep -q "id=\"matrix\"" "$tmp/dom.html"' "the matrix table is in the live DOM"
errors=$(grep -E 'CONSOLE|Uncaught|Refused to' "$tmp/console.log" | grep -viE 'dbus|gcm|fontconfig' || true)
check '[ -z "$errors" ]' "no console errors${errors:+: $errors}"
# the class filter, set from the link: only the escapes stay lit
# shellcheck disable=SC2086
timeout 60 "$browser" $flags --virtual-time-budget=2000 --dump-dom "file://$tmp/report.html#impact=escape" \
	>"$tmp/dom-escape.html" 2>/dev/null
grep -o '<td[^>]*class="cell[^>]*>' "$tmp/dom-escape.html" >"$tmp/cells"
esc=$(grep -c 'data-impact="escape"' "$tmp/cells")
lit=$(grep -v 'class="cell[^"]* dim"' "$tmp/cells" | grep -c 'data-impact=' || true)
litesc=$(grep -v 'class="cell[^"]* dim"' "$tmp/cells" | grep -c 'data-impact="escape"' || true)
check '[ "$esc" -gt 0 ] && [ "$lit" -eq "$esc" ] && [ "$litesc" -eq "$esc" ]' \
	"#impact=escape: the $esc escape cells are lit, every other cell dimmed ($lit lit)"
# shellcheck disable=SC2086
timeout 60 "$browser" $flags --window-size=1400,1000 --screenshot="$art/report.png" \
	"file://$tmp/report.html" >/dev/null 2>&1
check '[ -s "$art/report.png" ]' "screenshot kept: $art/report.png"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
