#!/bin/sh
# test_spawn_signal.sh SANDPROOF - sp.spawn's signal option (proc.h's
# signal_no, signal_after_ms, signal_when): how t:spawn signals a runner
# for the cancel and kill scenarios (PROC-4, PROC-10), on every POSIX
# harness (linux, posix, posix-sim).  Judged by what the program did (its
# trap's output, the file it wrote, how it died), not by the flag alone:
#   - SIGTERM after after_ms: the program's own handler runs, the result
#     says signalled, and not before after_ms (a lower bound);
#   - SIGINT reaches a program that keeps the default and kills it (a
#     shell wrapper's background job would have had SIGINT ignored);
#   - when: not before the path exists, then after_ms more (SIGKILL);
#   - the program alone: its child, in its process group, outlives it
#     and does what it was to do afterwards;
#   - a program that ended first is not signalled (not even while its
#     output is still drained);
#   - misuse raises naming the option: no name, an unknown name, a
#     negative after_ms, an empty when, an unknown key.
# Each case is a scenario returning "ok" or what it saw, run against the
# none runner without t:sandbox (no lab needed): the line's observation
# is checked, whatever verdict the OS's expectations give it.
set -u
sp=$1
tmp=$(mktemp -d /tmp/sandproof-signal.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/sc_lib.sh"
# what a result shows, for a failing case's line
show='local function show(r) return string.format("code %s signal %s signalled %s timed_out %s duration %s leftovers %s stdout %q", tostring(r.code), tostring(r.signal), tostring(r.signalled), tostring(r.timed_out), tostring(r.duration_ms), tostring(r.leftovers), tostring(r.stdout)) end'

sc_write "$tmp/sc" sig_term PROC-4 "$show
    local r = assert(sp.spawn { argv = { 'sh', '-c', 'trap \"echo got; exit 7\" TERM; i=0; while [ \$i -lt 100 ]; do sleep 0.05; i=\$((i+1)); done' },
      signal = { name = 'SIGTERM', after_ms = 300 }, timeout_ms = 20000 })
    if r.code == 7 and r.stdout == 'got\n' and r.signalled == true and r.duration_ms >= 300 then return 'ok' end
    return show(r)"

sc_write "$tmp/sc" sig_int PROC-4 "$show
    local r = assert(sp.spawn { argv = { 'sleep', '10' }, signal = { name = 'SIGINT', after_ms = 100 }, timeout_ms = 5000 })
    if r.signal == 2 and r.signalled == true and not r.timed_out then return 'ok' end
    return show(r)"

sc_write "$tmp/sc" sig_when PROC-4 "$show
    local f = t.tmp .. '/ready'
    local r = assert(sp.spawn { argv = { 'sh', '-c', 'sleep 0.4; echo x > \"\$0\"; sleep 10', f },
      signal = { name = 'SIGKILL', when = f, after_ms = 100 }, timeout_ms = 8000 })
    if r.signal == 9 and r.signalled == true and sp.exists(f) and r.duration_ms >= 500 and not r.timed_out then
      return 'ok'
    end
    return show(r) .. ' ready ' .. tostring(sp.exists(f))"

sc_write "$tmp/sc" sig_alone PROC-4 "$show
    local f, g = t.tmp .. '/child.pid', t.tmp .. '/child.alive'
    local r = assert(sp.spawn { argv = { 'sh', '-c', '(sleep 0.5; echo alive > \"\$1\") & echo \$! > \"\$0\"; wait', f, g },
      signal = { name = 'SIGTERM', when = f, after_ms = 50 }, timeout_ms = 8000, kill_leftovers = false })
    for _ = 1, 1500 do if (sp.read(g) or '') ~= '' then break end sp.sleep_ms(20) end
    if r.signal == 15 and r.signalled == true and not r.timed_out and sp.exists(g) then
      return 'ok'
    end
    return show(r) .. ' child wrote ' .. tostring(sp.exists(g))"

sc_write "$tmp/sc" sig_ended PROC-4 "$show
    -- it exits at once, but its child keeps stdout open: the launcher
    -- drains the pipe past after_ms, with the program already reaped
    local r = assert(sp.spawn { argv = { 'sh', '-c', 'sleep 2 & exit 0' }, signal = { name = 'SIGKILL', after_ms = 50 } })
    if r.code == 0 and r.signalled == false then return 'ok' end
    return show(r)"

sc_write "$tmp/sc" sig_misuse PROC-4 "for _, c in ipairs {
      { {}, 'sp.spawn: signal needs a name' },
      { { name = 'SIGNOPE' }, 'sp.spawn: unknown signal name SIGNOPE' },
      { { name = 'SIGTERM', after_ms = -1 }, 'sp.spawn: signal.after_ms must be 0 to' },
      { { name = 'SIGTERM', when = '' }, 'sp.spawn: signal.when must be a path' },
      { { name = 'SIGTERM', bogus = 1 }, 'sp.spawn: signal: unknown option \"bogus\"' },
    } do
      local done, err = pcall(sp.spawn, { argv = { 'true' }, signal = c[1] })
      if done or not tostring(err):find(c[2], 1, true) then return c[2] .. ': ' .. tostring(err) end
    end
    return 'ok'"

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.sig_*' --out "$tmp/o" \
	>"$tmp/run.log" 2>"$tmp/run.err"
os=$("$sp" env 2>/dev/null | sed -n 's/^[[:space:]]*"os":[[:space:]]*"\([^"]*\)".*/\1/p' | head -n 1)
for c in term int when alone ended misuse; do
	line=$(grep -aE "^[a-z]+ +fs\\.sig_$c +none " "$tmp/run.log")
	# on linux the expectation is "ok": the verdict must be pass; elsewhere
	# (no expectation for posix) the observation is what is checked
	if printf '%s\n' "$line" | grep -q 'observed=ok' &&
		{ [ "$os" != linux ] || printf '%s\n' "$line" | grep -q '^pass '; }; then
		ok "fs.sig_$c"
	else
		notok "fs.sig_$c: $(printf '%s' "$line" | head -c 400) $(head -c 300 "$tmp/run.err")"
	fi
done
tap_end
