#!/bin/sh
# test_harness_wine.sh SANDPROOF REF SCENARIOS - sandproof.exe under Wine
# (ctest in the windows cross-build, label "wine"): plumbing only, never a
# Windows result.
#   - --version, --help; `list` loads the whole catalogue (one line per
#     scenario file);
#   - `env` runs sandproof-ref.exe --version through proc.h (a job, pipes)
#     and records its answer; the OS is "wine", never "windows";
#   - a real run against the `none` runner: every scenario re-run as
#     `sandproof.exe __scenario` through the seam, recorded in
#     DIR/wine.sqlite (checked on the host with sqlite3: os wine, one row
#     per scenario); the scenarios need a network lab, which Windows lacks,
#     so each is `unsupported` with that reason, never pass;
#   - a scenario of this test's own: sp.spawn feeds stdin to
#     sandproof-ref.exe (`run --request -`, refused under Wine, naming it)
#     and captures its stdout and exit code; t:lab() is unsupported;
#     sp.spawn_bg with delay_ms (t:gc_async's wait) runs it no sooner than
#     the delay, its stdout and exit code kept; sp.spawn's signal SIGKILL
#     ends a sleeping probe after its delay and long before its end, and
#     SIGTERM is refused (EOPNOTSUPP);
#   - `report` renders the database in all four formats, each naming the
#     scenarios run.
# SANDPROOF, REF: wrappers running the .exe under wine (CMakeLists.txt).
# Exit 0 all held, 1 otherwise.
set -u
sp=$1 ref=$2 scenarios=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/sp-harnesswine.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

out=$("$sp" --version 2>&1); rc=$?
check "--version exits 0 and names itself" '[ $rc -eq 0 ] && echo "$out" | grep -q "^sandproof [0-9]"'
out=$("$sp" --help 2>&1); rc=$?
check "--help exits 0 with the usage" '[ $rc -eq 0 ] && echo "$out" | grep -q "usage: sandproof run"'

"$sp" list >"$work/list" 2>"$work/list.err"; rc=$?
files=$(find "$scenarios" -name '*.lua' | wc -l)
lines=$(wc -l <"$work/list")
check "list loads the catalogue: one line per scenario file ($lines of $files)" \
	'[ $rc -eq 0 ] && [ "$lines" -eq "$files" ] && [ "$files" -gt 100 ]'

"$sp" env >"$work/env" 2>&1; rc=$?
refv=$("$ref" --version 2>/dev/null | tr -d '\r')
check "env: the OS is wine" '[ $rc -eq 0 ] && grep -q "\"os\":[[:space:]]*\"wine\"" "$work/env"'
check "env: sandproof-ref.exe --version run through proc.h ($refv)" \
	'[ -n "$refv" ] && grep -q "\"ref\":[[:space:]]*\"$refv\"" "$work/env"'

# ---- the catalogue against `none`: unsupported (no lab), recorded -----------
filter='fs.outside_*'
"$sp" list --filter "$filter" | cut -f1 >"$work/ids"
total=$(wc -l <"$work/ids")
"$sp" run --runner none --filter "$filter" --out "$work/out" >"$work/run" 2>"$work/run.err"; rc=$?
check "run --runner none exits 0 (every result unsupported) (got $rc)" '[ $rc -eq 0 ]'
check "the summary: $total unsupported, nothing else" \
	'[ "$total" -ge 2 ] && grep -q "^0 passed, 0 failed, 0 skipped, $total unsupported, 0 inconclusive, 0 errors" "$work/run"'
db=$work/out/wine.sqlite
q() { sqlite3 "$db" "$1" 2>/dev/null; }
check "the results are in DIR/wine.sqlite" '[ -f "$db" ]'
check "the run row says os wine (never windows)" \
	'[ "$(q "SELECT group_concat(os) FROM run")" = wine ]'
check "one result per scenario, all recorded" \
	'[ "$(q "SELECT count(*) FROM result WHERE runner = '\''none'\''")" = "$total" ]'
check "every result unsupported, the missing lab named" \
	'[ "$(q "SELECT count(*) FROM result WHERE verdict = '\''unsupported'\'' AND reason = '\''unsupported on wine: no isolated network lab (no network namespaces)'\''")" = "$total" ]'
check "the scenarios are recorded by id" \
	'[ "$(q "SELECT group_concat(id, '\'' '\'') FROM (SELECT id FROM scenario ORDER BY id)")" = "$(tr "\n" " " <"$work/ids" | sed "s/ $//")" ]'

# ---- a scenario of this test: sp.spawn through the seam ------------------------
mkdir -p "$work/sc/fs"
cat >"$work/sc/fs/host.lua" <<'LUA'
return scenario { id = "fs.host", clauses = { "FS-1" }, claim = "x",
  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } }, impact = { ["*"] = "escape" },
  run = function(t)
    local v = assert(sp.spawn { argv = { t.paths.ref, "--version" }, timeout_ms = 60000 })
    local r = assert(sp.spawn { argv = { t.paths.ref, "run", "--request", "-" }, timeout_ms = 60000,
      stdin = '{"version":1,"command":["cmd"],"cwd":"C:/","profile":{"filesystem":{"kind":"unrestricted"},"network":{"mode":"allow"}}}' })
    local o = sp.json_decode(r.stdout)
    local lab_ok = pcall(function() t:lab() end)
    -- sp.spawn_bg's delay_ms (t:gc_async's wait, no shell): __spawn sleeps
    -- first, so the program ends no sooner than the delay (a lower bound)
    local t0 = sp.now_ms()
    local g = assert(sp.spawn_bg { argv = { t.paths.ref, "--version" }, delay_ms = 700, timeout_ms = 60000 }):wait()
    local bg = string.format("bg %s %s", tostring(g.code), sp.now_ms() - t0 >= 700 and g.stdout == v.stdout and
      "delayed" or "early")
    -- sp.spawn's signal (t:spawn's signal_after_ms): SIGKILL is the
    -- program's TerminateProcess, after the delay and long before its end;
    -- any other signal is refused with nothing run
    local k = assert(sp.spawn { argv = { t.paths.probe, "sleep", "20000" }, timeout_ms = 60000,
      signal = { name = "SIGKILL", after_ms = 300 } })
    local kill = string.format("kill %s %s %s", tostring(k.signal), tostring(k.signalled),
      k.duration_ms >= 300 and k.duration_ms < 20000 and "in-time" or "at " .. tostring(k.duration_ms))
    local nt, err, ename = sp.spawn { argv = { t.paths.probe, "getpid" }, signal = { name = "SIGTERM" } }
    local term = nt == nil and ename == "EOPNOTSUPP" and "term refused" or "term " .. tostring(err) .. " " .. tostring(ename)
    return string.format("%s|%d|%s|%s|%s|%s|%s|%s", v.stdout:gsub("%s+$", ""), r.code, o and o.kind or "?",
      tostring(lab_ok), sp.os, bg, kill, term)
  end }
LUA
env SANDPROOF_SCENARIOS="$work/sc" "$sp" run --runner none --out "$work/host" >"$work/host.out" 2>&1
check "sp.spawn: stdout, stdin and exit code of sandproof-ref.exe; t:lab() refused; sp.os wine; sp.spawn_bg delay_ms; signal SIGKILL sent in time, SIGTERM refused" \
	'grep -q "^unsupported  *fs.host  *none  *observed=$refv|0|sandbox_setup_failure|false|wine|bg 0 delayed|kill 9 true in-time|term refused  reason: the scenario states no expected outcome on wine" "$work/host.out"'

# ---- reports ---------------------------------------------------------------
for f in html junit markdown tap; do
	"$sp" report "$db" --format $f -o "$work/report.$f" >/dev/null 2>&1; rc=$?
	named=0
	while read -r id; do grep -q "$id" "$work/report.$f" 2>/dev/null && named=$((named + 1)); done <"$work/ids"
	check "report --format $f: written, names the $total scenarios ($named)" \
		'[ $rc -eq 0 ] && [ -s "$work/report.$f" ] && [ $named -eq $total ]'
done

echo "1..$n"
[ "$fail" -eq 0 ]
