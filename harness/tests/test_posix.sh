#!/bin/sh
# test_posix.sh SANDPROOF SANDPROOF_REF SANDPROOF_PROBE - the posix bring-up
# platform (-DSANDPROOF_PLATFORM=posix) behaves as platforms/README.md says:
#   - sandproof-ref never runs a command: `run` writes a
#     sandbox_setup_failure outcome with the typed step "unsupported",
#     errno EOPNOTSUPP, detail "unsupported on posix: ..." (exit 0), `exec`
#     refuses with 125, and the command's effect is absent from the host;
#     `doctor` says the contract cannot be enforced (exit 1);
#   - the probe answers a Linux-only operation with a typed "unsupported"
#     result and still runs the portable ones;
#   - the whole catalogue, against the ref runner, loads (`sandproof list`)
#     and comes out `unsupported`, never pass, fail, skip or error, with a
#     reason recorded in the database for every result: the runner's
#     refusal, or the missing primitive of a scenario that needs one (a
#     lab, a hold) named as "unsupported on posix: <reason>";
#   - the Lua host works: a scenario's sp.* calls (the plain launch of
#     this platform: stdin, stdout, exit code, environment, timeout) run and
#     their observation is recorded, unsupported for want of an expectation
#     on posix; an unknown option is still an error naming it; a scenario
#     file that does not load exits 2.
# Exit 0 when all hold, 1 otherwise (TAP lines say which).
set -u
sp=$1 ref=$2 probe=$3
tmp=$(mktemp -d /tmp/sandproof-posix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { if eval "$1"; then ok "$2"; else notok "$2"; fi; }

# ---- the runner fails closed -------------------------------------------------
marker=$tmp/ran
printf '{"version":1,"command":["sh","-c","echo ran > %s"],"cwd":"%s","profile":{"filesystem":{"kind":"unrestricted"},"network":{"mode":"allow"}}}' \
	"$marker" "$tmp" >"$tmp/req.json"
"$ref" run --request "$tmp/req.json" >"$tmp/out.json" 2>"$tmp/err"
check '[ $? -eq 0 ]' "sandproof-ref run writes an outcome (exit 0)"
check 'grep -q "\"kind\":\"sandbox_setup_failure\"" "$tmp/out.json"' "the outcome is sandbox_setup_failure"
check 'grep -q "\"step\":\"unsupported\",\"errno\":\"EOPNOTSUPP\",\"detail\":\"unsupported on posix: " "$tmp/out.json"' \
	"its setup_error is typed: step unsupported, EOPNOTSUPP, unsupported on posix: ..."
check '[ ! -e "$marker" ]' "run: the command did not run (no effect on the host)"
"$ref" exec --unrestricted --network allow -- sh -c "echo ran > $marker" >/dev/null 2>&1
check '[ $? -eq 125 ]' "sandproof-ref exec refuses with 125"
check '[ ! -e "$marker" ]' "exec: the command did not run (no effect on the host)"
"$ref" doctor >"$tmp/doctor" 2>&1
check '[ $? -eq 1 ]' "doctor exits 1"
check 'grep -q "unsupported on posix" "$tmp/doctor" && grep -q "CANNOT be enforced" "$tmp/doctor"' \
	"doctor says what is unsupported and that the contract cannot be enforced"

# ---- the probe: Linux-only operations answer unsupported --------------------
"$probe" io_uring -- getpid >"$tmp/probe" 2>&1
check '[ $? -eq 0 ]' "the probe runs a list with a Linux-only op (exit 0)"
check 'grep -q "\"op\":\"io_uring\",\"ok\":false,\"errno\":\"EOPNOTSUPP\",\"step\":\"unsupported_op\",\"unsupported\":true" "$tmp/probe"' \
	"io_uring answers a typed unsupported result"
check 'grep -q "\"op\":\"getpid\",\"ok\":true" "$tmp/probe"' "getpid (portable) still runs"

# ---- the catalogue: unsupported with a reason, never anything else ----------
"$sp" list >"$tmp/list" 2>"$tmp/list.err"
check '[ $? -eq 0 ] && [ -s "$tmp/list" ]' "sandproof list loads the catalogue"
total=$(wc -l <"$tmp/list")
"$sp" run --runner ref --out "$tmp/out" >"$tmp/run" 2>"$tmp/run.err"
rc=$?
check '[ $rc -eq 0 ]' "sandproof run exits 0 (every result unsupported) (got $rc)"
check 'grep -q "^0 passed, 0 failed, 0 skipped, $total unsupported, 0 inconclusive, 0 errors" "$tmp/run"' \
	"the summary: all $total scenarios unsupported, nothing else"
db=$tmp/out/posix.sqlite
check '[ -f "$db" ]' "the results are recorded in DIR/posix.sqlite"
q() { sqlite3 "$db" "$1" 2>/dev/null; }
check '[ "$(q "SELECT count(*) FROM result WHERE verdict = '\''unsupported'\''")" = "$total" ]' \
	"the database holds $total unsupported results"
check '[ "$(q "SELECT count(*) FROM result WHERE verdict <> '\''unsupported'\'' OR reason IS NULL OR reason = '\'''\''")" = 0 ]' \
	"no other verdict, and every result has its reason"
check '[ "$(q "SELECT count(*) FROM result WHERE reason NOT LIKE '\''%on posix%'\''")" = 0 ]' \
	"every reason names the platform (on posix)"
# A scenario that needs a primitive before it asks the runner anything: a
# lab (net.allow_reaches_lab) and a hold (swap.write_root_held).
check '[ "$(q "SELECT reason FROM result WHERE scenario_id = '\''net.allow_reaches_lab'\''")" = "unsupported on posix: no isolated network lab (no network namespaces)" ]' \
	"net.allow_reaches_lab: unsupported, the missing lab named"
check '[ "$(q "SELECT reason FROM result WHERE scenario_id = '\''swap.write_root_held'\''")" = "unsupported on posix: no way to hold a system call of the runner (no system-call filter)" ]' \
	"swap.write_root_held: unsupported, the missing hold named"
check '[ "$(q "SELECT reason FROM result WHERE scenario_id = '\''fs.tmp_private'\''")" = "$(sed -n "s/.*\"detail\":\"\([^\"]*\)\".*/\1/p" "$tmp/out.json")" ]' \
	"fs.tmp_private: unsupported with the runner's own refusal as reason"
check '[ ! -s "$tmp/run.err" ]' "nothing on stderr"

# ---- the Lua host on posix --------------------------------------------------
mkdir -p "$tmp/sc/fs" "$tmp/bad/fs"
cat >"$tmp/sc/fs/host.lua" <<'LUA'
return scenario { id = "fs.host", clauses = { "FS-1" }, claim = "x",
  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } }, impact = { ["*"] = "escape" },
  run = function(t)
    local r = assert(sp.spawn { argv = { "sh", "-c", 'printf "%s-" "$X"; cat; exit 3' },
                                env = { "X=spawned" }, stdin = "fed", timeout_ms = 10000 })
    local s = assert(sp.spawn { argv = { "sleep", "10" }, timeout_ms = 300 })
    local j = sp.json_decode('{"a":[1,2]}')
    return string.format("%s|%d|%s|%d|%s", r.stdout, r.code, tostring(s.timed_out), #j.a, sp.os)
  end }
LUA
cat >"$tmp/sc/fs/strict.lua" <<'LUA'
return scenario { id = "fs.strict", clauses = { "FS-1" }, claim = "x",
  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } }, impact = { ["*"] = "escape" },
  run = function(t) sp.spawn { argv = { "true" }, bogus = 1 } return "ok" end }
LUA
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner ref --out "$tmp/host" >"$tmp/host.out" 2>&1
check 'grep -q "^unsupported  *fs.host  *ref  *observed=spawned-fed|3|true|2|posix  reason: the scenario states no expected outcome on posix" "$tmp/host.out"' \
	"sp.spawn (stdin, stdout, exit code, env, timeout) and sp.json_decode work; observed recorded"
check 'grep -q "^error  *fs.strict .*sp.spawn: unknown option \"bogus\"" "$tmp/host.out"' \
	"an unknown option is an error naming it"
printf 'return scenario { id = "fs.bad", claim = "x" }\n' >"$tmp/bad/fs/bad.lua"
env SANDPROOF_SCENARIOS="$tmp/bad" "$sp" list >/dev/null 2>"$tmp/bad.err"
check '[ $? -eq 2 ] && grep -q "bad.lua: " "$tmp/bad.err"' "a scenario that does not load: list exits 2 naming the file"

echo "1..$n"
[ "$fail" -eq 0 ]
