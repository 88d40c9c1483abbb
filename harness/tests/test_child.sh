#!/bin/sh
# test_child.sh SANDPROOF - the harness's process model without fork
# (harness/child.h, harness/README.md "Processes"):
#   - the internal subcommands __scenario and __spawn refuse to run when not
#     started by a harness (no marker, or a marker naming another process),
#     exit 2 with a message, and are not in --help;
#   - a scenario's own print() does not corrupt its result (the scenario
#     process's stdout is its stderr; the result has a channel of its own);
#   - the scenario process's tree ends with it: a daemon a scenario leaves
#     (a new session, re-parented) is killed after a normal end, after the
#     per-scenario timeout and after an interrupt (SIGINT: exit 130), each
#     checked on the host by pid;
#   - sp.spawn_bg keeps sp.spawn's options across the process boundary:
#     argv with arbitrary bytes, stdin, env, cwd, timeout (killed), a fault,
#     a lab (its network namespace, through the kept descriptors); bg:wait()
#     gives {code, signal, stdout}; a bg collected unwaited is killed with
#     what it started; delay_ms starts the program no sooner than that
#     after sp.spawn_bg returned (a lower bound: load only adds to it), a
#     delay out of range and sp.spawn given one raise.
set -u
sp=$1
tmp=$(mktemp -d /tmp/sandproof-child.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/sc_lib.sh"
alive() { kill -0 "$1" 2>/dev/null; }

# ---- the internal subcommands, by hand --------------------------------------
for sub in "__scenario x none 1 /x /y /z" "__spawn"; do
	name=${sub%% *}
	# shellcheck disable=SC2086
	env -u SANDPROOF_HARNESS_PID "$sp" $sub </dev/null >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "$name is internal: .*SANDPROOF_HARNESS_PID is not set" "$tmp/err" &&
		[ ! -s "$tmp/out" ]; then ok "$name by hand: refused, exit 2"
	else notok "$name by hand (exit $st): $(head -c 300 "$tmp/err")"; fi
	# a marker naming a process that is not our parent (our own pid, the
	# shell's $$ is the parent: use 1)
	# shellcheck disable=SC2086
	env SANDPROOF_HARNESS_PID=1 "$sp" $sub </dev/null >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "$name is internal: .*does not name the parent" "$tmp/err"; then
		ok "$name with a marker naming another process: refused"
	else notok "$name with a foreign marker (exit $st): $(head -c 300 "$tmp/err")"; fi
done
if "$sp" --help | grep -q '__'; then notok "--help names an internal subcommand"
else ok "--help names no internal subcommand"; fi

sc() { # name body... : the scenario fs.NAME whose run(t) is body
	name=$1
	shift
	sc_write "$tmp/sc" "$name" FS-1 "$*"
}
# A daemon: a new session, its parent gone at once; its pid in FILE.
daemon="setsid sh -c 'echo \$\$ > \"\$0\"; exec sleep 60' \"\$1\" </dev/null >/dev/null 2>&1 &"
sc print 'print("{\"verdict\":\"fail\"}") io.write("not json\n") return "ok"'
sc daemon_end "sp.spawn { argv = { \"sh\", \"-c\", [[$daemon]], \"d\", \"$tmp/end.pid\" }, kill_leftovers = false }
    for _ = 1, 3000 do if (sp.read(\"$tmp/end.pid\") or \"\"):match(\"^%d+\n\") then break end sp.sleep_ms(20) end
    return \"ok\""
sc daemon_timeout "sp.spawn { argv = { \"sh\", \"-c\", [[$daemon]], \"d\", \"$tmp/timeout.pid\" }, kill_leftovers = false }
    for _ = 1, 3000 do if (sp.read(\"$tmp/timeout.pid\") or \"\"):match(\"^%d+\n\") then break end sp.sleep_ms(20) end
    sp.write(\"$tmp/timeout.dir\", t.tmp)
    sp.sleep_ms(30000) return \"ok\""
sc daemon_intr "sp.spawn { argv = { \"sh\", \"-c\", [[$daemon]], \"d\", \"$tmp/intr.pid\" }, kill_leftovers = false }
    for _ = 1, 3000 do if (sp.read(\"$tmp/intr.pid\") or \"\"):match(\"^%d+\n\") then break end sp.sleep_ms(20) end
    sp.write(\"$tmp/intr.dir\", t.tmp)
    sp.sleep_ms(30000) return \"ok\""
# sp.spawn_bg across the process boundary
sc bg_opts 'local weird = "a b\001\255\"\\ c"
    local bg = assert(sp.spawn_bg { argv = { "sh", "-c", "printf \"%s|%s|%s|\" \"$1\" \"$V\" \"$(pwd)\"; cat; exit 7", "x", weird },
                                    env = { "V=v1", "PATH=/usr/bin:/bin" }, cwd = t.tmp, stdin = "in\0put" })
    local r = bg:wait()
    local want = weird .. "|v1|" .. t.tmp .. "|in\0put"
    if r.code ~= 7 or r.signal ~= nil or r.stdout ~= want then
      return string.format("got code=%s signal=%s stdout=%q", tostring(r.code), tostring(r.signal), r.stdout)
    end
    local ok2 = pcall(bg.wait, bg)
    return ok2 and "waited twice" or "ok"'
sc bg_timeout 'local r = assert(sp.spawn_bg { argv = { "sh", "-c", "sleep 5; echo late" }, timeout_ms = 300 }):wait()
    return (r.code == nil and r.signal == 9 and r.stdout == "") and "ok" or
      string.format("code=%s signal=%s stdout=%q", tostring(r.code), tostring(r.signal), r.stdout)'
sc bg_fault 'local plain = assert(sp.spawn_bg { argv = { "sh", "-c", "cd / && echo in" } }):wait()
    local r = assert(sp.spawn_bg { argv = { "sh", "-c", "cd / && echo in" }, fault = { syscall = "chdir", errno = "EPERM" } }):wait()
    if plain.stdout ~= "in\n" then return "control_failed" end
    return (r.stdout == "" and r.code ~= 0) and "ok" or ("not faulted: " .. r.stdout)'
sc bg_delay 'local ok, err = pcall(sp.spawn_bg, { argv = { "true" }, delay_ms = -1 })
    if ok or not tostring(err):find("delay_ms must be 0 to 600000 (got -1)", 1, true) then
      return "a negative delay: " .. tostring(err)
    end
    ok, err = pcall(sp.spawn, { argv = { "true" }, delay_ms = 5 })
    if ok or not tostring(err):find("sp.spawn: unknown option \"delay_ms\"", 1, true) then
      return "sp.spawn given delay_ms: " .. tostring(err)
    end
    local t0 = sp.now_ms()
    local bg = assert(sp.spawn_bg { argv = { "sh", "-c", "cat \"$0\"", t.tmp .. "/go" }, delay_ms = 700 })
    assert(sp.write(t.tmp .. "/go", "after"))
    local r = bg:wait()
    local took = sp.now_ms() - t0
    if r.code ~= 0 or r.stdout ~= "after" then
      return string.format("code=%s stdout=%q", tostring(r.code), r.stdout)
    end
    return took >= 700 and "ok" or string.format("the program ended %d ms after spawn_bg", math.floor(took))'
sc bg_lab 'local lab, why = sp.lab()
    if not lab then t:skip("no lab: " .. tostring(why)) end
    local ns = { "readlink", "/proc/self/ns/net" }
    local host = sp.spawn { argv = ns }.stdout
    local fg = sp.spawn { argv = ns, lab = lab }.stdout
    local bg = assert(sp.spawn_bg { argv = ns, lab = lab }):wait().stdout
    if fg == host or fg == "" then return "control_failed" end
    return bg == fg and "ok" or ("bg in " .. bg .. ", lab " .. fg)'
sc bg_gc "do
      local bg = assert(sp.spawn_bg { argv = { \"sh\", \"-c\", [[$daemon sleep 60]], \"d\", \"$tmp/gc.pid\" }, kill_leftovers = false })
      for _ = 1, 3000 do if (sp.read(\"$tmp/gc.pid\") or \"\"):match(\"^%d+\n\") then break end sp.sleep_ms(20) end
    end
    local pid = (sp.read(\"$tmp/gc.pid\") or \"\"):match(\"%d+\")
    if not pid then return \"control_failed\" end
    if sp.spawn { argv = { \"kill\", \"-0\", pid } }.code ~= 0 then return \"control_failed\" end
    collectgarbage() collectgarbage()
    for _ = 1, 1500 do
      if sp.spawn { argv = { \"kill\", \"-0\", pid } }.code ~= 0 then return \"ok\" end
      sp.sleep_ms(20)
    end
    return \"alive\""

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.[pb]*' --out "$tmp/o" >"$tmp/run.log" 2>"$tmp/run.err"
want() { # verdict id [pattern]
	line=$(grep -aE "^$1 +fs\\.$2 +none " "$tmp/run.log")
	if [ -n "$line" ] && printf '%s\n' "$line" | grep -q -- "${3:-}"; then ok "fs.$2: $1"
	else notok "fs.$2: wanted $1: $(grep -E " fs\\.$2 " "$tmp/run.log" | head -c 300)"; fi
}
want pass print
if grep -q '^not json' "$tmp/run.err"; then ok "a scenario's print reaches the harness's stderr"
else notok "a scenario's print went nowhere: $(head -c 300 "$tmp/run.err")"; fi
want pass bg_opts
want pass bg_timeout
want pass bg_fault
want pass bg_delay
if [ "$(id -u)" = 0 ] || unshare -rn true 2>/dev/null; then want pass bg_lab
else want skip bg_lab; fi
want pass bg_gc
pid=$(cat "$tmp/gc.pid" 2>/dev/null)
if [ -n "$pid" ] && ! alive "$pid"; then ok "a collected bg's daemon is gone (host check)"
else notok "a collected bg's daemon ${pid:-?} is alive"; kill -9 "$pid" 2>/dev/null; fi

# ---- the scenario process's tree ends with it ---------------------------------
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.daemon_end' --out "$tmp/o" >"$tmp/run.log" 2>&1
pid=$(cat "$tmp/end.pid" 2>/dev/null)
if [ -n "$pid" ] && ! alive "$pid" && grep -q '^pass *fs.daemon_end' "$tmp/run.log"; then
	ok "a daemon left by a scenario that ended is killed"
else notok "daemon after a scenario's end: ${pid:-no pid} $(head -c 300 "$tmp/run.log")"; kill -9 "$pid" 2>/dev/null; fi

# (the timeout leaves the scenario 10 s to start its daemon and write its
# directory's name, on a loaded machine too, before it sleeps 30 s)
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.daemon_timeout' --timeout 10 \
	--out "$tmp/o" >"$tmp/run.log" 2>&1
pid=$(cat "$tmp/timeout.pid" 2>/dev/null)
dir=$(cat "$tmp/timeout.dir" 2>/dev/null)
if [ -n "$pid" ] && ! alive "$pid" && [ -n "$dir" ] && [ ! -e "$dir" ] &&
	grep -q '^error *fs.daemon_timeout .*timed out after 10 s' "$tmp/run.log"; then
	ok "timeout: an error, the scenario's daemon killed, its temp dir removed"
else notok "timeout: pid ${pid:-?} dir ${dir:-?}: $(head -c 300 "$tmp/run.log")"; kill -9 "$pid" 2>/dev/null; fi

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.daemon_intr' --out "$tmp/o" \
	>"$tmp/run.log" 2>&1 &
hp=$!
# intr.dir is written once the daemon's pid is (sp.write: one write of a
# short text, so non-empty means whole)
sc_wait 120 "$hp" test -s "$tmp/intr.dir"
kill -INT "$hp"
sc_reap 60 "$hp"
st=$?
pid=$(cat "$tmp/intr.pid" 2>/dev/null)
dir=$(cat "$tmp/intr.dir" 2>/dev/null)
if [ $st -eq 130 ] && [ -n "$pid" ] && ! alive "$pid" && [ -n "$dir" ] && [ ! -e "$dir" ]; then
	ok "SIGINT: exit 130, the scenario's daemon killed, its temp dir removed"
else notok "SIGINT (exit $st) pid ${pid:-?} dir ${dir:-?}: $(head -c 300 "$tmp/run.log")"; kill -9 "$pid" 2>/dev/null; fi

tap_end
