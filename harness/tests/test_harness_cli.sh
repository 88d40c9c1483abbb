#!/bin/sh
# test_harness_cli.sh SANDPROOF - the sandproof command line's errors: each
# bad input exits 2 with a message naming what is wrong, and runs nothing.
set -u
sp=$1
. "$(dirname "$0")/sc_lib.sh" # sc_wait, sc_reap (its counters are this file's own, below)
tmp=$(mktemp -d /tmp/sandproof-cli.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0
expect() { # status pattern description command...
	want=$1 pat=$2 what=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	n=$((n + 1))
	if [ "$got" -eq "$want" ] && grep -q -- "$pat" "$tmp/err" "$tmp/out"; then
		pass=$((pass + 1)); echo "ok $n - $what"
	else
		fail=$((fail + 1)); echo "not ok $n - $what (exit $got, wanted $want; $(head -c 200 "$tmp/err"))"
	fi
}
expect 0 "usage: sandproof run" "--help" "$sp" --help
expect 2 "unknown command" "unknown subcommand" "$sp" frobnicate
expect 2 "unknown runner 'nosuch'" "unknown runner" "$sp" run --runner nosuch --out "$tmp/o"
expect 2 "adapter ../x: .*No such file" "a runner path that is no file" "$sp" run --runner ../x --out "$tmp/o"
expect 2 "matches no scenario" "filter matching nothing" "$sp" run --filter 'nosuch.*' --out "$tmp/o"
expect 2 "bad number" "bad --repeat" "$sp" run --repeat 0 --out "$tmp/o"
mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
	expect 2 "ro/out" "unwritable --out" "$sp" run --filter 'meta.hooks_readonly' --out "$tmp/ro/out"
else
	expect 2 "not a directory" "--out that is a file" sh -c "touch '$tmp/file'; exec '$sp' run --filter 'meta.hooks_readonly' --out '$tmp/file'"
fi
# a database from a newer schema is refused, and left untouched
mkdir -p "$tmp/newer"
sqlite3 "$tmp/newer/linux.sqlite" "pragma application_id = 1397772870; pragma user_version = 99; create table t(x);"
sum=$(md5sum "$tmp/newer/linux.sqlite")
expect 2 "newer" "database from a newer schema" "$sp" run --filter 'meta.hooks_readonly' --out "$tmp/newer"
n=$((n + 1))
if [ "$(md5sum "$tmp/newer/linux.sqlite")" = "$sum" ]; then pass=$((pass + 1)); echo "ok $n - newer database untouched"
else fail=$((fail + 1)); echo "not ok $n - newer database was modified"; fi
# scenario files that do not load, or lack a field, name the file
mkdir -p "$tmp/sc/fs"
printf 'return scenario {\n  id = "fs.broken",\n  claim = "x" +\n}\n' >"$tmp/sc/fs/broken.lua"
expect 2 "broken.lua:4" "syntax error names file:line" env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" list
rm "$tmp/sc/fs/broken.lua"
printf 'return scenario { id = "fs.noexpect", clauses = {"FS-1"}, claim = "x", run = function() end }\n' >"$tmp/sc/fs/a.lua"
expect 2 "missing 'expect'" "missing expect" env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" list
printf 'return scenario { id = "fs.noclaim", clauses = {"FS-1"}, expect = {}, run = function() end }\n' >"$tmp/sc/fs/a.lua"
expect 2 "missing 'claim'" "missing claim" env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" list
printf 'return scenario { claim = "x", clauses = {"FS-1"}, expect = {}, run = function() end }\n' >"$tmp/sc/fs/a.lua"
expect 2 "missing 'id'" "missing id" env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" list
# a scenario that raises yields verdict error with its traceback, and the run goes on
cat >"$tmp/sc/fs/a.lua" <<'LUA'
return scenario { id = "fs.raises", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t) error("boom from the scenario") end }
LUA
cat >"$tmp/sc/fs/b.lua" <<'LUA'
return scenario { id = "fs.zhangs", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t) sp.sleep_ms(60000) return "ok" end }
LUA
cat >"$tmp/sc/fs/c.lua" <<'LUA'
return scenario { id = "fs.zz_ok", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t) return "ok" end }
LUA
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --timeout 2 --out "$tmp/e" >"$tmp/out" 2>&1
st=$?
n=$((n + 1))
if [ $st -eq 1 ] && grep -q '^error .*fs.raises' "$tmp/out" && grep -q '^error .*fs.zhangs.*timed out' "$tmp/out" \
	&& grep -q '^pass .*fs.zz_ok' "$tmp/out"; then
	pass=$((pass + 1)); echo "ok $n - raising and hanging scenarios are errors, the run goes on"
else
	fail=$((fail + 1)); echo "not ok $n - error handling: $(cat "$tmp/out")"
fi
n=$((n + 1))
left=$(ls -d /tmp/sandproof-*-fs_zhangs-* /var/tmp/sandproof-*-fs_zhangs-* 2>/dev/null | wc -l)
if [ "$left" -eq 0 ]; then pass=$((pass + 1)); echo "ok $n - the timed-out scenario's temp directories are removed"
else fail=$((fail + 1)); echo "not ok $n - $left temp directories of the timed-out scenario left"; fi
n=$((n + 1))
if sqlite3 "$tmp/e/linux.sqlite" "select body from evidence e join result r on r.id = e.result_id where r.scenario_id = 'fs.raises'" | grep -q "boom from the scenario"; then
	pass=$((pass + 1)); echo "ok $n - the traceback is recorded as evidence"
else
	fail=$((fail + 1)); echo "not ok $n - traceback not recorded"
fi
# race power: below its minimum, a clean race is inconclusive, a violation
# seen is still a fail; at its minimum, a pass
mkdir -p "$tmp/pw/swap"
for v in "weak confined 5" "weakbad escaped 5" "strong confined 10"; do
	set -- $v
	cat >"$tmp/pw/swap/$1.lua" <<LUA
return scenario { id = "swap.$1", clauses = {"SWAP-3"}, claim = "x",
  expect = { linux = {"confined"}, macos = {"confined"}, windows = {"confined"} },
  impact = { ["*"] = "escape" },
  run = function(t) t:set_power { attempts = 1, windows = $3, min = 10 } return "$2" end }
LUA
done
env SANDPROOF_SCENARIOS="$tmp/pw" "$sp" run --out "$tmp/pwo" >"$tmp/out" 2>&1
n=$((n + 1))
if grep -q '^inconclusive .*swap.weak .*race power 5 < minimum 10' "$tmp/out" && grep -q '^fail .*swap.weakbad ' "$tmp/out" \
	&& grep -q '^pass .*swap.strong ' "$tmp/out"; then
	pass=$((pass + 1)); echo "ok $n - low power: clean race inconclusive, violation fail; enough power: pass"
else
	fail=$((fail + 1)); echo "not ok $n - race power verdicts: $(cat "$tmp/out")"
fi
# per-runner timeout: the default times the adapter's timeout_scale, on
# record in the run's fingerprint; an explicit --timeout is not scaled
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$tmp/h/runners"
ln -s "$src/lua" "$tmp/h/lua"
cp "$src/runners/none.lua" "$tmp/h/runners/none.lua"
printf 'local M = require "none"\nreturn setmetatable({ name = "slow", timeout_scale = 3 }, { __index = M })\n' \
	>"$tmp/h/runners/slow.lua"
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/pw" "$sp" run --runner slow,none \
	--filter swap.strong --out "$tmp/to" >/dev/null 2>&1
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/pw" "$sp" run --runner slow,none \
	--filter swap.strong --timeout 7 --out "$tmp/to" >/dev/null 2>&1
got=$(sqlite3 "$tmp/to/linux.sqlite" "select group_concat(json_extract(env_json, '\$.timeout_s.slow') || '/' ||
	json_extract(env_json, '\$.timeout_s.none'), ' ') from (select env_json from run order by id)")
n=$((n + 1))
if [ "$got" = "360/120 7/7" ]; then pass=$((pass + 1)); echo "ok $n - timeout_scale 3: 360 s (none 120 s); --timeout 7: 7 s for both"
else fail=$((fail + 1)); echo "not ok $n - per-runner timeouts recorded: '$got'"; fi
# a hold whose at-th call never comes is retried twice (3 runs); one that
# is hit runs once
mkdir -p "$tmp/hr/swap"
cat >"$tmp/hr/swap/retry.lua" <<'LUA'
return scenario { id = "swap.retry", clauses = {"SWAP-2"}, claim = "x",
  expect = { linux = {"3 1"}, macos = {"3 1"}, windows = {"3 1"} },
  impact = { ["*"] = "escape" },
  run = function(t)
    local function runs(at, f)
      t:hold { syscalls = { "openat" }, at = at,
               sandbox = { command = { "sh", "-c", "echo x >> " .. f } } }
      local n = 0
      for _ in (sp.read(f) or ""):gmatch("x") do n = n + 1 end
      return n
    end
    return runs(1000000, t.ws .. "/never") .. " " .. runs(1, t.ws .. "/first")
  end }
LUA
env SANDPROOF_SCENARIOS="$tmp/hr" "$sp" run --runner none --out "$tmp/hro" >"$tmp/out" 2>&1
n=$((n + 1))
if grep -q '^pass .*swap.retry .*observed=3 1' "$tmp/out"; then
	pass=$((pass + 1)); echo "ok $n - a hold never hit runs 3 times, a hit one once"
else
	fail=$((fail + 1)); echo "not ok $n - hold retries: $(cat "$tmp/out")"
fi
# a peer missing from the machine is skip (never fail), and env says so
env SANDPROOF_BWRAP=/nonexistent SANDPROOF_FIREJAIL=/nonexistent SANDPROOF_PEERS=/nonexistent \
	PATH=/usr/bin:/bin "$sp" run --runner bwrap,firejail,codex,srt --filter fs.outside_sibling \
	--out "$tmp/mp" >"$tmp/out" 2>&1
st=$?
n=$((n + 1))
if [ $st -eq 0 ] && [ "$(grep -c '^skip .*fs.outside_sibling .*not installed' "$tmp/out")" -eq 4 ]; then
	pass=$((pass + 1)); echo "ok $n - missing peers: four skips naming what is not installed, exit 0"
else
	fail=$((fail + 1)); echo "not ok $n - missing peers (exit $st): $(cat "$tmp/out")"
fi
env SANDPROOF_BWRAP=/nonexistent SANDPROOF_FIREJAIL=/nonexistent SANDPROOF_PEERS=/nonexistent \
	PATH=/usr/bin:/bin "$sp" env >"$tmp/out" 2>&1
n=$((n + 1))
if [ "$(grep -cE '"(bwrap|firejail|codex|srt)":[[:space:]]*"not installed"' "$tmp/out")" -eq 4 ]; then
	pass=$((pass + 1)); echo "ok $n - env reports each missing peer as not installed"
else
	fail=$((fail + 1)); echo "not ok $n - env with missing peers: $(cat "$tmp/out")"
fi
# a harness killed with SIGKILL cannot remove its scenario's temp
# directories: the next run removes them (nobody holds their lock), and
# never those of a scenario still running
cat >"$tmp/sc/fs/d.lua" <<'LUA'
return scenario { id = "fs.zkilled", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t) sp.sleep_ms(60000) return "ok" end }
LUA
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --filter fs.zkilled --timeout 100 --out "$tmp/k" >/dev/null 2>&1 &
hp=$!
both_made() { [ -n "$(ls -d /tmp/sandproof-*-fs_zkilled-* 2>/dev/null)" ] && [ -n "$(ls -d /var/tmp/sandproof-*-fs_zkilled-* 2>/dev/null)" ]; }
sc_wait 120 "$hp" both_made
dirs=$(ls -d /tmp/sandproof-*-fs_zkilled-* /var/tmp/sandproof-*-fs_zkilled-* 2>/dev/null)
kid=$(echo "$dirs" | head -n 1 | sed -n 's|.*/sandproof-\([0-9]*\)-fs_zkilled-.*|\1|p')
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --filter fs.zz_ok --out "$tmp/k2" >/dev/null 2>&1
n=$((n + 1))
if [ -n "$kid" ] && [ "$(echo "$dirs" | wc -l)" -eq 2 ] && [ "$(ls -d $dirs 2>/dev/null | wc -l)" -eq 2 ]; then
	pass=$((pass + 1)); echo "ok $n - a run leaves a running scenario's temp directories alone"
else
	fail=$((fail + 1)); echo "not ok $n - running scenario's temp directories: '$dirs' -> '$(ls -d $dirs 2>/dev/null)'"
fi
kill -KILL "$hp"
sc_reap 30 "$hp"
# the scenario's process dies with the harness; the next run counts its
# pid as in use until it is reaped (kill(pid, 0) succeeds on a zombie), so
# wait until no process has it
gone() { ! kill -0 "$1" 2>/dev/null; }
[ -z "$kid" ] || sc_wait 60 "" gone "$kid"
n=$((n + 1))
if [ -n "$kid" ] && [ "$(ls -d $dirs 2>/dev/null | wc -l)" -eq 2 ]; then
	pass=$((pass + 1)); echo "ok $n - SIGKILL left the scenario's temp directories (precondition)"
else
	fail=$((fail + 1)); echo "not ok $n - after SIGKILL: '$(ls -d $dirs 2>/dev/null)'"
fi
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --filter fs.zz_ok --out "$tmp/k2" >/dev/null 2>&1
n=$((n + 1))
if [ -n "$kid" ] && [ -z "$(ls -d $dirs 2>/dev/null)" ]; then
	pass=$((pass + 1)); echo "ok $n - the next run removed the killed run's temp directories"
else
	fail=$((fail + 1)); echo "not ok $n - left after the next run: '$(ls -d $dirs 2>/dev/null)'"
	rm -rf $dirs
fi
# a claimed directory whose named pid is gone (another pid namespace, or a
# reused pid) stays while its lock is held; unclaimed, it goes
held=$(mktemp -d /tmp/sandproof-4194304-fs_zheld-XXXXXX)
sh -c 'exec 9<"$1" && flock 9 && exec sleep 60' sh "$held" & # one process holds it
fp=$!
taken() { ! flock -n "$held" true 2>/dev/null; }
sc_wait 60 "$fp" taken
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --filter fs.zz_ok --out "$tmp/k2" >/dev/null 2>&1
n=$((n + 1))
if [ -d "$held" ]; then pass=$((pass + 1)); echo "ok $n - a directory whose lock is held is kept"
else fail=$((fail + 1)); echo "not ok $n - a held directory was removed"; fi
kill "$fp"
sc_reap 30 "$fp"
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --filter fs.zz_ok --out "$tmp/k2" >/dev/null 2>&1
n=$((n + 1))
if [ ! -e "$held" ]; then pass=$((pass + 1)); echo "ok $n - once released, it is removed"
else fail=$((fail + 1)); echo "not ok $n - a released directory was kept"; rm -rf "$held"; fi
# ---- results are never lost silently ----------------------------------------
# scenarios for the store checks: fs.s1 passes; fs.s2 waits for $tmp/go (a
# lock holder's signal) or, given $tmp/full, fills that file system first;
# fs.s3 passes
mkdir -p "$tmp/st/fs"
for id in s1 s3; do
	printf 'return scenario { id = "fs.%s", clauses = {"FS-1"}, claim = "x",\n  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },\n  impact = { ["*"] = "escape" },\n  run = function(t) return "ok" end }\n' "$id" >"$tmp/st/fs/$id.lua"
done
cat >"$tmp/st/fs/s2.lua" <<LUA
return scenario { id = "fs.s2", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t)
    if sp.exists("$tmp/full/out") then -- fill the tmpfs the database is on
      local big = string.rep("x", 4 * 1024 * 1024)
      sp.write("$tmp/full/out/fill1", big)
      assert(not sp.write("$tmp/full/out/fill2", big), "the file system did not fill up")
      return "ok"
    end
    local t0 = sp.now_ms()
    while not sp.exists("$tmp/go") and sp.now_ms() - t0 < 60000 do sp.sleep_ms(20) end
    return "ok"
  end }
LUA
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# A full output file system: a tmpfs in a mount namespace of our own (as an
# unprivileged user: with a user namespace), filled up by fs.s2.
if [ "$(id -u)" -eq 0 ]; then ns="unshare -m"; else ns="unshare -rm"; fi
mkdir -p "$tmp/full"
if $ns sh -c 'mount -t tmpfs -o size=1m sandproof-full "$1"' sh "$tmp/full" 2>"$tmp/err"; then
	for cmd in run smoke; do
		if [ $cmd = run ]; then args="run --runner none --out $tmp/full/out"
		else args="smoke --runner none --out $tmp/full/out"; fi
		# smoke: doctor is a stand-in that says yes; s2 plays two of its properties
		rm -f "$tmp/st/fs/p1.lua" "$tmp/st/fs/p2.lua"
		[ $cmd = smoke ] && sed 's/"fs.s2"/"fs.outside_sibling"/' "$tmp/st/fs/s2.lua" >"$tmp/st/fs/p1.lua" &&
			sed 's/"fs.s1"/"net.deny.host_loopback"/' "$tmp/st/fs/s1.lua" >"$tmp/st/fs/p2.lua"
		printf '#!/bin/sh\nexit 0\n' >"$tmp/yes" && chmod +x "$tmp/yes"
		env SANDPROOF_SCENARIOS="$tmp/st" SANDPROOF_REF="$tmp/yes" $ns sh -c \
			'mount -t tmpfs -o size=1m sandproof-full "$1" && mkdir "$1/out" && shift && exec "$@"' \
			sh "$tmp/full" "$sp" $args >"$tmp/out" 2>"$tmp/err"
		st=$?
		want="2 results could not be recorded in $tmp/full/out/linux.sqlite: .*full"
		if [ $st -eq 3 ] && grep -q "$want" "$tmp/err" &&
		   { [ $cmd = smoke ] || [ "$(grep -c '^pass .*fs.s' "$tmp/out")" -eq 3 ]; }; then
			ok "$cmd on a full file system: exit 3, the lost results counted and why"
		else
			notok "$cmd on a full file system (exit $st): $(cat "$tmp/out" "$tmp/err" | head -c 600)"
		fi
	done
	rm -f "$tmp/st/fs/p1.lua" "$tmp/st/fs/p2.lua"
else
	skip "full file system: cannot mount a tmpfs in a namespace of our own ($(head -c 200 "$tmp/err"))"
	skip "smoke on a full file system: same"
fi
# A database another process holds locked: fs.s2 waits until the holder
# (sqlite3 with BEGIN EXCLUSIVE, fed through a fifo we close to release it)
# has the lock; fs.s2's and fs.s3's results then wait out --db-wait 1 and
# are lost; the run says so and exits 3.  Held less than the bound, they wait
# and are recorded.
one_recorded() { [ "$(sqlite3 "$1/linux.sqlite" 'select count(*) from result' 2>/dev/null)" = 1 ]; }
lockrun() { # DIR HOLD_S WAIT_ARGS...: run s1..s3 while a holder locks DIR's database
	dir=$1 hold=$2
	shift 2
	rm -f "$tmp/go" "$tmp/fifo"
	mkfifo "$tmp/fifo"
	env SANDPROOF_SCENARIOS="$tmp/st" "$sp" run --runner none --out "$dir" "$@" >"$tmp/out" 2>"$tmp/err" &
	hp=$!
	sc_wait 120 "$hp" one_recorded "$dir"
	sqlite3 "$dir/linux.sqlite" <"$tmp/fifo" >/dev/null 2>&1 &
	lp=$!
	exec 8>"$tmp/fifo"
	# .bail: a holder that did not get the lock never signals fs.s2
	printf '.timeout 10000\n.bail on\nBEGIN EXCLUSIVE;\n.shell touch %s\n' "$tmp/go" >&8
	if [ "$hold" -gt 0 ]; then
		sc_wait 60 "$lp" test -e "$tmp/go"
		sleep "$hold"
		exec 8>&-
		sc_reap 120 "$hp"; st=$?
	else
		sc_reap 120 "$hp"; st=$?
		exec 8>&-
	fi
	sc_reap 60 "$lp"
}
lockrun "$tmp/lk" 0 --db-wait 1
got=$(sqlite3 "$tmp/lk/linux.sqlite" 'select count(*) from result')
if [ $st -eq 3 ] && grep -q "2 results could not be recorded in $tmp/lk/linux.sqlite: .*locked" "$tmp/err" &&
   [ "$(grep -c '^pass .*fs.s' "$tmp/out")" -eq 3 ] && [ "$got" = 1 ]; then
	ok "a database locked beyond --db-wait: exit 3, 2 results lost and said so, 1 recorded"
else
	notok "locked database (exit $st, $got recorded): $(cat "$tmp/out" "$tmp/err" | head -c 600)"
fi
lockrun "$tmp/lk2" 3
got=$(sqlite3 "$tmp/lk2/linux.sqlite" 'select count(*) from result')
if [ $st -eq 0 ] && [ "$got" = 3 ]; then ok "a lock held 3 s, within the default bound: waited, all 3 recorded"
else notok "lock within the bound (exit $st, $got recorded): $(head -c 400 "$tmp/err")"; fi
# A corrupt database (garbage over an index page) is refused by name before
# anything is appended to it, by run and by report, diff and merge.
env SANDPROOF_SCENARIOS="$tmp/st" "$sp" run --runner none --filter fs.s1 --out "$tmp/cor" >/dev/null 2>&1
db=$tmp/cor/linux.sqlite
page=$(sqlite3 "$db" "select rootpage from sqlite_master where name = 'result_by_scenario_runner'")
psize=$(sqlite3 "$db" 'pragma page_size')
head -c "$psize" /dev/urandom | dd of="$db" bs="$psize" seek=$((page - 1)) conv=notrunc 2>/dev/null
sum=$(md5sum <"$db")
env SANDPROOF_SCENARIOS="$tmp/st" "$sp" run --runner none --filter fs.s1 --out "$tmp/cor" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q "$db: .*corrupt" "$tmp/err" && [ "$(md5sum <"$db")" = "$sum" ] && [ ! -s "$db-wal" ]; then
	ok "run refuses a corrupt database by name, exit 2, the file untouched"
else
	notok "corrupt database (exit $st): $(head -c 400 "$tmp/err")"
fi
expect 2 "$db: .*corrupt" "report refuses a corrupt database" "$sp" report "$db" -o "$tmp/r.html"
expect 2 "$db: .*corrupt" "diff refuses a corrupt database" "$sp" diff "$tmp/lk2/linux.sqlite" "$db"
expect 2 "$db: .*corrupt" "merge refuses a corrupt input" "$sp" merge "$tmp/lk2/linux.sqlite" "$db" -o "$tmp/m.sqlite"
# An interrupted run (SIGTERM; SIGINT and SIGHUP alike) stops the running
# scenario, removes its temp directories, keeps every printed result and
# leaves the run unfinished; exit 128 + 15.  fs.s3 says where its temp
# directory is, then waits.
cat >"$tmp/st/fs/s3.lua" <<LUA
return scenario { id = "fs.s3", clauses = {"FS-1"}, claim = "x",
  expect = { linux = {"ok"}, macos = {"ok"}, windows = {"ok"} },
  impact = { ["*"] = "escape" },
  run = function(t)
    sp.write("$tmp/s3dir.part", t.tmp)
    os.rename("$tmp/s3dir.part", "$tmp/s3dir")
    local t0 = sp.now_ms()
    while sp.now_ms() - t0 < 60000 do sp.sleep_ms(20) end
    return "ok"
  end }
LUA
env SANDPROOF_SCENARIOS="$tmp/st" "$sp" run --runner none --filter 'fs.s[13]' --out "$tmp/intr" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
sc_wait 120 "$pid" test -s "$tmp/s3dir" # written whole, then renamed into place
kill -TERM "$pid"
sc_reap 60 "$pid"
st=$?
s3dir=$(cat "$tmp/s3dir" 2>/dev/null)
idb=$tmp/intr/linux.sqlite
if [ $st -eq 143 ] && grep -q "interrupted by SIGTERM: .* 1 results recorded" "$tmp/err" && [ -n "$s3dir" ] &&
	[ ! -e "$s3dir" ] && [ "$(sqlite3 "$idb" "select count(*) from result")" = 1 ] &&
	[ -z "$(sqlite3 "$idb" "select finished_at from run")" ]; then
	ok "SIGTERM: exit 143, the scenario's temp dir removed, 1 result kept, run unfinished"
else
	notok "SIGTERM (exit $st, temp dir ${s3dir:-?} $( [ -e "$s3dir" ] && echo left)): $(head -c 300 "$tmp/err")"
fi
rm -f "$tmp/st/fs/s3.lua"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
