#!/bin/sh
# test_jobs.sh SANDPROOF - `run --jobs N` (harness/jobs.h), with scenarios
# written here (ids unique to this run of the test):
#   - usage: --jobs 0, 65 and a word exit 2, naming the option;
#   - scheduling: under --jobs 4 pairs do run at once (each counts the pairs
#     alive beside it), and a scenario declaring `exclusive` runs alone
#     (it sees no other pair alive, three times over its run); under
#     --jobs 1 no pair ever sees another;
#   - the printed lines are those of --jobs 1, in the same order; every
#     (scenario, runner, seed) of --repeat 2 over two runners and a
#     --filter is recorded once, with the round's seed; the run is finished
#     and its fingerprint says jobs 4;
#   - isolation while pairs run at once: temp directories distinct and gone
#     after; a census by the pair's own marker sees its own process alone
#     (no false residue from the others, which a shared marker does see),
#     and a process a pair leaves is still seen by its census (never
#     hidden), then killed with its pair; two network labs listen on the
#     same port at once; a pair past --timeout is an error with its daemon
#     killed, while the pairs beside it pass;
#   - SIGINT and SIGTERM with pairs running: exit 130 / 143, every printed
#     result in the database and no other, the run not finished, every
#     keeper, scenario process and daemon of the run gone, their temp
#     directories removed;
#   - SIGKILL: keepers and scenario processes die with the harness, the
#     database is intact and holds every printed result, and the next run
#     removes the temp directories they left.
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp jobs
u=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
mkdir -p "$tmp/live" "$tmp/seen" "$tmp/census" "$tmp/dirs" "$tmp/pids" "$tmp/labs"
export SP_JOBS_DIR="$tmp"
kill_pidfiles() { # the daemons this test's scenarios started, by pid
	for f in "$tmp"/pids/*; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
}
trap 'kill_pidfiles; rm -rf "$tmp"' EXIT

# jw DIR AREA NAME EXCL BODY: DIR/AREA/jobs_U_NAME.lua, the scenario
# AREA.jobs_U_NAME (EXCL: "" or the exclusive reason), expected "ok".
jw() {
	mkdir -p "$1/$2"
	{
		printf 'return scenario { id = "%s.jobs_%s_%s", clauses = { "FS-1" }, claim = "x",\n' "$2" "$u" "$3"
		printf '  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } },\n'
		printf '  impact = { ["*"] = "fidelity" },\n'
		[ -z "$4" ] || printf '  exclusive = "%s",\n' "$4"
		printf '  run = function(t)\n  local d = os.getenv("SP_JOBS_DIR")\n'
		printf '  local tag = t.id .. "-" .. t.runner_name .. "-" .. t.seed\n'
		printf '%s\n  end }\n' "$5"
	} >"$1/$2/jobs_${u}_$3.lua"
}
# A pair: alive in live/ for 0.9 s, counting the pairs alive beside it
# (most, into seen/), its temp dir into dirs/; BODY_EXTRA runs meanwhile.
alive_body='  assert(sp.write(d .. "/live/" .. tag, "x"))
  sp.write(d .. "/dirs/" .. tag, t.tmp .. "\n")
  local most, counts = 0, {}
  local function count()
    local n = #(sp.listdir(d .. "/live") or {})
    if n > most then most = n end
    counts[#counts + 1] = n
  end'
alive_end='  sp.unlink(d .. "/live/" .. tag)
  sp.write(d .. "/seen/" .. tag, most .. "\n")'
par="$alive_body
  for _ = 1, 9 do count() sp.sleep_ms(100) end
$alive_end
  return \"ok\""
excl="$alive_body
  for _ = 1, 3 do count() sp.sleep_ms(300) end
$alive_end
  return most == 1 and \"ok\" or (\"crowded:\" .. table.concat(counts, \",\"))"
# census: its own marked process, seen alone; a shared marker sees others
census="$alive_body
  local own = \"sandproof-jobs-$u-\" .. tag:gsub(\"[^%w]\", \"_\") .. \"-\" .. sp.getpid()
  local bg = assert(sp.spawn_bg { argv = { \"sh\", \"-c\", \"sleep 2; :\", own } })
  local mine, all = 0, 0
  for _ = 1, 9 do
    count()
    mine = math.max(mine, #sp.census { marker = own }.processes)
    all = math.max(all, #sp.census { marker = \"sandproof-jobs-$u-\" }.processes)
    sp.sleep_ms(100)
  end
  bg:wait()
  local left = #sp.census { marker = own }.processes
  $alive_end
  sp.write(d .. \"/census/\" .. tag, string.format(\"%d %d %d\\n\", mine, all, left))
  return (mine == 1 and left == 0) and \"ok\" or string.format(\"own %d all %d left %d\", mine, all, left)"
# a leak: a daemon left behind, which its own census must see
leak="$alive_body
  local own = \"sandproof-jobs-$u-leak-\" .. sp.getpid()
  sp.spawn { argv = { \"sh\", \"-c\", [[setsid sh -c 'echo \$\$ > \"\$0\"; sleep 60; :' \"\$1\" \"\$2\" </dev/null >/dev/null 2>&1 &]],
             \"x\", d .. \"/pids/\" .. tag, own }, kill_leftovers = false }
  for _ = 1, 100 do if sp.exists(d .. \"/pids/\" .. tag) then break end sp.sleep_ms(20) end
  for _ = 1, 5 do count() sp.sleep_ms(100) end
  local seen = #sp.census { marker = own }.processes
  $alive_end
  return seen == 1 and \"ok\" or (\"leak not seen: \" .. seen)"

cat_a=$tmp/cat
for x in a b c d; do jw "$cat_a" fs "par_$x" "" "$par"; done
for x in a b; do jw "$cat_a" proc "par_$x" "" "$par"; done
jw "$cat_a" meta excl_x "the test's scenario that must run alone" "$excl"
jw "$cat_a" proc excl_y "the test's scenario that must run alone" "$excl"
for x in a b c; do jw "$cat_a" net "census_$x" "" "$census"; done
jw "$cat_a" rt leak "" "$leak"
run() { # OUT ARGS...: run the catalogue cat_a into tmp/OUT, its log tmp/OUT.log
	o=$1
	shift
	rm -rf "$tmp/live"/* "$tmp/seen"/*
	SANDPROOF_SCENARIOS=$cat_a "$sp" run --out "$tmp/$o" "$@" >"$tmp/$o.log" 2>"$tmp/$o.err"
}
results() { grep -aE '^(pass|fail|skip|error|unsupported|inconclusive) ' "$1"; }
q() { sqlite3 "$tmp/$1/linux.sqlite" "$2"; }

# ---- usage ---------------------------------------------------------------------------
for bad in 0 65 four; do
	"$sp" run --jobs "$bad" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 2 ] && grep -q -- "--jobs takes 1 to 64, not $bad" "$tmp/err" && [ ! -e "$tmp/bad" ]; then
		ok "--jobs $bad: exit 2 naming the option, nothing recorded"
	else notok "--jobs $bad (exit $st): $(head -c 300 "$tmp/err")"; fi
done

# ---- --jobs 1 against --jobs 4 ---------------------------------------------------------
run j1 --runner none --jobs 1
st1=$?
most1=$(cat "$tmp"/seen/* | sort -n | tail -n 1)
run j4 --runner none --jobs 4
st4=$?
most4=$(cat "$tmp"/seen/* | sort -n | tail -n 1)
if [ $st1 -eq 0 ] && [ "$most1" = 1 ]; then ok "--jobs 1: every pair ran alone (exit $st1)"
else notok "--jobs 1 (exit $st1): most pairs alive at once $most1: $(head -c 300 "$tmp/j1.err")"; fi
if [ $st4 -eq 0 ] && [ "${most4:-0}" -ge 2 ]; then ok "--jobs 4: pairs ran at once (up to $most4), all passed"
else notok "--jobs 4 (exit $st4): most pairs alive at once ${most4:-none}: $(results "$tmp/j4.log" | grep -v '^pass' | head -c 400)"; fi
for x in meta.jobs_${u}_excl_x proc.jobs_${u}_excl_y; do
	sc_expect "$tmp/j4.log" "$x" none ok "an exclusive scenario saw no other pair alive"
done
for x in a b c; do
	sc_expect "$tmp/j4.log" "net.jobs_${u}_census_$x" none ok "its own marker: its process alone, nothing left"
done
sc_expect "$tmp/j4.log" "rt.jobs_${u}_leak" none ok "the process it left seen by its census beside the others"
census_all=$(cut -d' ' -f2 "$tmp"/census/* | sort -n | tail -n 1)
if [ "${census_all:-0}" -ge 2 ]; then
	ok "a shared marker's census sees the other pairs' processes ($census_all), the own marker only its own"
else notok "census: the shared marker saw ${census_all:-nothing}: the pairs did not overlap"; fi
results "$tmp/j1.log" >"$tmp/j1.lines"
results "$tmp/j4.log" >"$tmp/j4.lines"
if diff "$tmp/j1.lines" "$tmp/j4.lines" >"$tmp/diff"; then
	ok "--jobs 4 prints the lines of --jobs 1, in the same order ($(wc -l <"$tmp/j4.lines"))"
else notok "--jobs 4's lines differ from --jobs 1's: $(head -c 400 "$tmp/diff")"; fi
if [ "$(q j4 "select json_extract(env_json, '$.jobs') from run")" = 4 ] &&
	[ -n "$(q j4 "select finished_at from run")" ]; then ok "the run is finished, its fingerprint says jobs 4"
else notok "the run's fingerprint or end: $(q j4 "select finished_at, json_extract(env_json, '$.jobs') from run")"; fi
# temp dirs: one per pair, all distinct, none left
ndirs=$(cat "$tmp"/dirs/* | sort -u | wc -l)
left=$(for f in "$tmp"/dirs/*; do [ -e "$(cat "$f")" ] && cat "$f"; done)
if [ "$ndirs" -eq "$(ls "$tmp/dirs" | wc -l)" ] && [ -z "$left" ]; then
	ok "every pair had a temp directory of its own ($ndirs), all removed"
else notok "temp directories: $ndirs distinct of $(ls "$tmp/dirs" | wc -l), left: $left"; fi
# the leak: seen by its census (pass above), then killed with its pair
alive_leaks=''
for f in "$tmp"/pids/*; do kill -0 "$(cat "$f")" 2>/dev/null && alive_leaks="$alive_leaks $(cat "$f")"; done
if [ -n "$(ls "$tmp/pids")" ] && [ -z "$alive_leaks" ]; then ok "the daemons a pair left were killed with it"
else notok "daemons left alive:${alive_leaks:- (none started)}"; fi

# ---- two runners, --repeat 2, --filter -------------------------------------------------
run rep --runner none,ref --jobs 3 --repeat 2 --seed 7 --filter '*.jobs_*_par_*'
st=$?
want=$(( $(ls "$cat_a"/*/jobs_*_par_*.lua | wc -l) * 2 * 2 ))
dups=$(q rep "select scenario_id || runner || seed from result group by scenario_id, runner, seed having count(*) <> 1")
seeds=$(q rep "select group_concat(distinct seed) from (select seed from result order by seed)")
if [ $st -eq 0 ] && [ "$(q rep "select count(*) from result")" -eq "$want" ] && [ -z "$dups" ] &&
	[ "$seeds" = "7,8" ] && [ "$(results "$tmp/rep.log" | wc -l)" -eq "$want" ]; then
	ok "--runner none,ref --repeat 2 --filter: each of the $want pairs once, seeds 7 and 8"
else notok "repeat/runners/filter (exit $st): $(q rep "select count(*) from result") results, seeds $seeds, dups $dups"; fi

# ---- isolation: two labs on one port, a timeout beside passing pairs ------------------
cat_b=$tmp/catb
lab="  assert(sp.write(d .. \"/labs/\" .. tag, \"x\"))
  for _ = 1, 300 do if #(sp.listdir(d .. \"/labs\") or {}) >= 2 then break end sp.sleep_ms(20) end
  local lab = t:lab()
  local port = lab:listen(\"tcp\", \"127.0.0.1\", 47231)
  local both = #(sp.listdir(d .. \"/labs\") or {}) >= 2
  sp.sleep_ms(500)
  return (both and port == 47231) and \"ok\" or string.format(\"port %s beside another: %s\", tostring(port), tostring(both))"
jw "$cat_b" net lab_a "" "$lab"
jw "$cat_b" net lab_b "" "$lab"
jw "$cat_b" proc slow "" "  sp.spawn { argv = { \"sh\", \"-c\", [[setsid sh -c 'echo \$\$ > \"\$0\"; exec sleep 60' \"\$1\" </dev/null >/dev/null 2>&1 &]],
             \"x\", d .. \"/pids/slow\" }, kill_leftovers = false }
  sp.sleep_ms(30000) return \"ok\""
jw "$cat_b" fs par_a "" "$par"
jw "$cat_b" fs par_b "" "$par"
SANDPROOF_SCENARIOS=$cat_b "$sp" run --runner none --jobs 5 --timeout 8 --out "$tmp/iso" >"$tmp/iso.log" 2>"$tmp/iso.err"
st=$?
if grep -q "^skip .*lab_a" "$tmp/iso.log"; then
	ok "# SKIP two labs at once: no network lab here ($(grep -a 'lab_a' "$tmp/iso.log" | head -c 200))"
else
	sc_expect "$tmp/iso.log" "net.jobs_${u}_lab_a" none ok "a lab listened on a port another lab held at the same time"
	sc_expect "$tmp/iso.log" "net.jobs_${u}_lab_b" none ok "the other lab, the same port"
fi
slow=$(grep -a "proc.jobs_${u}_slow" "$tmp/iso.log")
spid=$(cat "$tmp/pids/slow" 2>/dev/null)
if [ $st -eq 1 ] && printf '%s' "$slow" | grep -q '^error .*scenario timed out after 8 s' &&
	[ -n "$spid" ] && ! kill -0 "$spid" 2>/dev/null; then
	ok "a pair past --timeout is an error, its daemon killed (pid $spid)"
else notok "the slow pair (exit $st, daemon ${spid:-none}): $slow"; fi
sc_expect "$tmp/iso.log" "fs.jobs_${u}_par_a" none ok "a pair beside the timed-out one passes"
sc_expect "$tmp/iso.log" "fs.jobs_${u}_par_b" none ok "another pair beside it passes"

# ---- interrupts with pairs running -----------------------------------------------------
cat_c=$tmp/catc
hang="  sp.spawn { argv = { \"sh\", \"-c\", [[setsid sh -c 'echo \$\$ > \"\$0\"; exec sleep 60' \"\$1\" </dev/null >/dev/null 2>&1 &]],
             \"x\", d .. \"/pids/\" .. tag }, kill_leftovers = false }
  sp.write(d .. \"/dirs/\" .. tag, t.tmp .. \"\\n\")
  sp.sleep_ms(60000) return \"ok\""
for x in a b c; do jw "$cat_c" fs "hang_$x" "" "$hang"; done
jw "$cat_c" fs a_quick "" '  return "ok"' # first in the catalogue: printed at once
# interrupted SIG WANT: run cat_c under --jobs 4, SIG once the three hangs
# started and the quick pair printed; then check what is left
interrupted() {
	rm -f "$tmp"/pids/* "$tmp"/dirs/*
	: >"$tmp/int.log"
	SANDPROOF_SCENARIOS=$cat_c "$sp" run --runner none --jobs 4 --out "$tmp/int$1" >"$tmp/int.log" 2>"$tmp/int.err" &
	hp=$!
	i=0
	while { [ "$(ls "$tmp/pids" | wc -l)" -lt 3 ] || [ "$(ls "$tmp/dirs" | wc -l)" -lt 3 ] ||
		! grep -q quick "$tmp/int.log"; } && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "-$1" "$hp"
	st=0
	wait "$hp" || st=$?
	printed=$(results "$tmp/int.log" | wc -l)
	recorded=$(q "int$1" "select count(*) from result")
	if [ "$st" -eq "$2" ] && [ "$printed" -eq 1 ] && [ "$recorded" -eq 1 ] &&
		grep -q "interrupted by SIG$1: stopped the running scenarios" "$tmp/int.err" &&
		[ -z "$(q "int$1" "select finished_at from run")" ]; then
		ok "SIG$1: exit $st, the one printed result recorded and no other, the run not finished"
	else notok "SIG$1: exit $st (want $2), printed $printed, recorded $recorded: $(head -c 300 "$tmp/int.err")"; fi
	left=$(ps -eo pid=,args= | grep -F "$cat_c" | grep -v grep)
	daemons='' dirs=''
	for f in "$tmp"/pids/*; do kill -0 "$(cat "$f")" 2>/dev/null && daemons="$daemons $(cat "$f")"; done
	for f in "$tmp"/dirs/*; do [ -e "$(cat "$f")" ] && dirs="$dirs $(cat "$f")"; done
	if [ -z "$left" ] && [ -z "$daemons" ] && [ -z "$dirs" ] && [ "$(ls "$tmp/pids" | wc -l)" -eq 3 ]; then
		ok "SIG$1: no keeper, scenario process or daemon of the run left, their temp directories removed"
	else notok "SIG$1 left: processes [$left] daemons [$daemons] dirs [$dirs]"; fi
}
interrupted INT 130
interrupted TERM 143

# SIGKILL: what dies with the harness, what the next run sweeps
rm -f "$tmp"/pids/* "$tmp"/dirs/*
SANDPROOF_SCENARIOS=$cat_c "$sp" run --runner none --jobs 4 --out "$tmp/kill" >"$tmp/kill.log" 2>&1 &
hp=$!
i=0
while { [ "$(ls "$tmp/dirs" | wc -l)" -lt 3 ] || ! grep -q quick "$tmp/kill.log"; } && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
printed=$(results "$tmp/kill.log" | wc -l)
kill -KILL "$hp"
wait "$hp" 2>/dev/null
i=0
while [ -n "$(ps -eo pid=,args= | grep -F "$cat_c" | grep -v grep)" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
left=$(ps -eo pid=,args= | grep -F "$cat_c" | grep -v grep)
if [ -z "$left" ]; then ok "SIGKILL: every keeper and scenario process died with the harness"
else notok "SIGKILL: left $left"; fi
if [ "$(q kill "pragma integrity_check")" = ok ] && [ "$printed" -ge 1 ] &&
	[ "$(q kill "select count(*) from result")" -ge "$printed" ] && [ -z "$(q kill "select finished_at from run")" ]; then
	ok "SIGKILL: the database is intact, holds the $printed printed result(s), the run not finished"
else notok "SIGKILL: database $(q kill "pragma integrity_check"), $(q kill "select count(*) from result") results, $printed printed"; fi
kill_pidfiles # daemons outlive a SIGKILLed harness (as with --jobs 1): ours, by pid
# "whose process is gone": the killed scenario processes, orphans now, are
# gone once whoever adopted them reaps them (not at once everywhere)
i=0
for f in "$tmp"/dirs/*; do
	pid=$(basename "$(cat "$f")" | cut -d- -f2)
	while [ -e "/proc/$pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
done
SANDPROOF_SCENARIOS=$cat_c "$sp" run --runner none --filter "*quick" --out "$tmp/kill2" >/dev/null 2>&1
dirs=''
for f in "$tmp"/dirs/*; do [ -e "$(cat "$f")" ] && dirs="$dirs $(cat "$f")"; done
if [ -z "$dirs" ] && [ "$(ls "$tmp/dirs" | wc -l)" -ge 3 ]; then ok "SIGKILL: the next run removed the temp directories the killed pairs left"
else notok "SIGKILL: temp directories left after the next run:$dirs"; fi
tap_end "$tmp/j4.err"
