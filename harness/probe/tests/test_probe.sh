#!/bin/bash
# test_probe.sh - checks sandproof-probe outside any sandbox.
#
#   test_probe.sh PATH/TO/sandproof-probe
#
# Prints "ok N - text" / "not ok N - text" per check ("ok N - # SKIP why"
# when the host lacks something, not counted as passed), then
# "N passed, N failed"; exits 1 if any check failed.  Runs as root and as an
# unprivileged user; as root, the "another user" checks run the probe
# through setpriv as nobody (the binary must then be in a directory nobody
# can read, e.g. /tmp/x with mode 755).
#
# Safety: every network operation runs inside a network namespace this
# script creates (loopback, and 192.0.2.0/24 routed into that loopback);
# every mount operation run as root runs inside a private mount namespace;
# every process started is killed by pid; the temp dir is removed.
set -u

PROBE=$(readlink -f "${1:?usage: test_probe.sh PATH/TO/sandproof-probe}")
# sc_wait, sc_reap: bounded waits on background jobs (their counters unused)
. "$(dirname "$0")/../../tests/sc_lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
UID_NOW=$(id -u)
PASS=0 FAIL=0 N=0
T=$(mktemp -d /tmp/test_probe.XXXXXX)
chmod 755 "$T"
PIDS=()
umask 022

# PIDS holds only live processes we started; a pid leaves it the moment it
# is reaped or killed, so cleanup never signals a recycled pid.
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$T"
}
forget() {
	local p keep=()
	for p in "${PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
}
trap cleanup EXIT

if [ "$UID_NOW" = 0 ]; then
	OTHER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	NETNS=(unshare -n)
	MNTNS=(unshare -m --propagation private)
else
	OTHER=()
	NETNS=(unshare -rn)
	MNTNS=(unshare -rm --propagation private)
fi

ok() { N=$((N + 1)); PASS=$((PASS + 1)); echo "ok $N - $1"; }
notok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; }
skip() { N=$((N + 1)); echo "ok $N - # SKIP $1"; }
check() { # check DESC ACTUAL EXPECTED
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (got [$2], want [$3])"; fi
}

# The JSON helper: every check on probe output goes through json.loads.
cat >"$T/j.py" <<'EOF'
import json, sys

def lines(path, allow_filler=False):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")
    if text and not text.endswith("\n"):
        raise ValueError("last line incomplete")
    out = []
    for ln in text.split("\n")[:-1]:
        if allow_filler and ln and not ln.startswith("{") and set(ln) <= {"x"}:
            continue
        out.append(json.loads(ln))
    return out

mode, path = sys.argv[1], sys.argv[2]
if mode == "valid":
    # sentinel first, exactly; then op lines numbered 0.. in order
    try:
        ls = lines(path, allow_filler=len(sys.argv) > 3)
        first = open(path, "rb").read().split(b"\n")[0].decode()
        s = ls[0]
        assert first == '{"sentinel":"sandproof-probe","version":1,"pid":%d}' % s["pid"], first
        for k, o in enumerate(ls[1:]):
            assert o["i"] == k and isinstance(o["op"], str), o
            assert isinstance(o["ok"], bool), o
            assert (o["errno"] is None) == o["ok"], o
            assert o["errno"] is None or o["errno"].startswith("E"), o
        print("yes")
    except Exception as e:
        print("no: %r" % (e,))
elif mode == "get":
    # get FILE I KEY: the JSON of field KEY of op I ("sentinel" for line 0)
    ls = lines(path, allow_filler=True)
    i, key = sys.argv[3], sys.argv[4]
    o = ls[0] if i == "sentinel" else next((x for x in ls[1:] if x.get("i") == int(i)), {})
    print(json.dumps(o[key], ensure_ascii=False) if key in o else "MISSING")
elif mode == "count":
    print(len(lines(path, allow_filler=True)) - 1)
elif mode == "filler":
    raw = open(path, "rb").read()
    print(sum(len(l) + 1 for l in raw.split(b"\n")[:-1] if not l.startswith(b"{")))
elif mode == "str":
    # str FILE I KEY EXPECTED_FILE: field equals the file's exact bytes
    ls = lines(path)
    o = next(x for x in ls[1:] if x.get("i") == int(sys.argv[3]))
    want = open(sys.argv[5], "rb").read().decode("utf-8")
    print("yes" if o.get(sys.argv[4]) == want else "no: %r" % (o.get(sys.argv[4]),))
EOF

# run_probe NAME ARGS...: stdout in $T/NAME.out, stderr in $T/NAME.err, status in RC
run_probe() {
	local name=$1
	shift
	"$PROBE" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	RC=$?
}
get() { "$PY" "$T/j.py" get "$T/$1.out" "$2" "$3"; }
valid() { check "$1: every line is JSON, sentinel first" "$("$PY" "$T/j.py" valid "$T/$1.out" ${2:+"$2"})" yes; }

cd "$T" || exit 1

# ---- usage errors: nothing on stdout, exit 2, the error names the problem
run_probe u1 write "$T/u1file" x -- bogus_op
check "unknown op exits 2" "$RC" 2
check "unknown op prints nothing on stdout" "$(wc -c <"$T/u1.out")" 0
check "unknown op is named on stderr" "$(grep -c 'bogus_op' "$T/u1.err")" 1
check "an unknown later op stops the earlier write" "$([ -e "$T/u1file" ] && echo made || echo absent)" absent
run_probe u2 write onlyone
check "wrong arg count exits 2" "$RC" 2
check "wrong arg count names the op" "$(grep -c 'operation 0 (write): wrong number of arguments' "$T/u2.err")" 1
for bad in "connect tcp localhost 80" "connect sctp 127.0.0.1 80" "connect tcp 127.0.0.1 70000" \
	"sleep abc" "kill 0 TERM" "kill 1 NOSIG" "socket nosuch stream" "socket inet" \
	"socket raw stream" "flood 10 stdlog" "exit 256" "signal 0" "ptrace -1" "ptrace @" "getpid extra" \
	"forkn 0" "forkn 100001" "alloc 0" "fill $T/x -1" "openn abc" "spin 0" "clone_user fork" \
	"socketpair nosuch stream" "connect_from tcp 127.0.0.1 ::1 80" "connect_from tcp host 127.0.0.1 80" \
	"listen_count tcp 127.0.0.1 0 0 $T/r" "listen_count tcp 127.0.0.1 0 5 " "mach_lookup " \
	"xattr_set $T/x a" "open $T/x bogus" "open $T/x rdonly,,trunc" "chmod $T/x 8" "chmod $T/x 17777" \
	"tmpfile_link $T x"; do
	# shellcheck disable=SC2086
	run_probe u3 $bad
	check "usage error: $bad" "$RC:$(wc -c <"$T/u3.out")" "2:0"
done
# the macOS-only operations keep their name off macOS and answer the typed
# unsupported; if_addrs lists this host's (here: this namespace's) addresses
run_probe m1 mach_lookup com.apple.system.logger -- xattr_set "$T" com.apple.quarantine x \
	-- xattr_get "$T" com.apple.quarantine -- xattr_remove "$T" com.apple.quarantine -- if_addrs
if [ "$(uname -s)" = Darwin ]; then
	check "mach_lookup of the system logger: ok" "$(get m1 0 ok)" true
else
	check "macOS-only ops off macOS: EOPNOTSUPP at unsupported_op" \
		"$(get m1 0 step):$(get m1 1 step):$(get m1 2 step):$(get m1 3 unsupported)" \
		'"unsupported_op":"unsupported_op":"unsupported_op":true'
fi
check "if_addrs: ok, with inet and inet6 strings" "$(get m1 4 ok):$("$PY" -c 'import json,sys
o=[json.loads(l) for l in open(sys.argv[1])][5]
print(isinstance(o["inet"], str) and isinstance(o["inet6"], str) and "127.0.0.1" not in o["inet"].split(","))' "$T/m1.out")" "true:True"
run_probe u4 getpid -- -- getpid
check "empty operation between -- exits 2" "$RC" 2
run_probe u5
check "no operation exits 2" "$RC" 2
run_probe u6 --help
check "--help exits 0 and lists rename_exchange" "$RC:$(grep -c '^  rename_exchange A B' "$T/u6.err")" "0:1"

# ---- files
printf 'he said "hi"\\ and\n\ttab \001 é ✓' >"$T/text.want"
TEXT=$(cat "$T/text.want"; echo .)
TEXT=${TEXT%.}
run_probe f1 write "$T/a" "$TEXT" -- read "$T/a" -- append "$T/a" "+more" -- read "$T/a" -- stat "$T/a" -- getpid
check "file ops exit 0" "$RC" 0
valid f1
check "write ok" "$(get f1 0 ok):$(get f1 0 errno)" "true:null"
check "write reports bytes" "$(get f1 0 bytes)" "$(wc -c <"$T/text.want")"
check "host sees the written bytes" "$(cmp -s "$T/a" <(cat "$T/text.want"; printf +more) && echo same)" same
check "read returns the exact text (escaping)" "$("$PY" "$T/j.py" str "$T/f1.out" 1 data "$T/text.want")" yes
printf '+more' >>"$T/text.want"
check "append then read returns both" "$("$PY" "$T/j.py" str "$T/f1.out" 3 data "$T/text.want")" yes
check "stat type/mode/uid" "$(get f1 4 type):$(get f1 4 mode):$(get f1 4 uid)" "\"file\":\"0644\":$UID_NOW"
check "sentinel pid is the probe's pid" "$(get f1 sentinel pid)" "$(get f1 5 pid)"
check "getpid ppid is this shell" "$(get f1 5 ppid)" "$$"

head -c 5000 /dev/zero | tr '\0' 'y' >"$T/big"
printf 'ok\377\376bin' >"$T/bin"
run_probe f2 read "$T/big" -- read "$T/bin" -- read "$T/missing" -- read "$T"
valid f2
check "read caps data at 4096 bytes" "$(get f2 0 bytes):$(get f2 0 truncated)" "4096:true"
check "read of invalid UTF-8 stays JSON, flagged lossy" "$(get f2 1 data_lossy)" true
check "read of a missing file: ENOENT at open" "$(get f2 2 errno):$(get f2 2 step)" '"ENOENT":"open"'
check "read of a directory: EISDIR at read" "$(get f2 3 errno):$(get f2 3 step)" '"EISDIR":"read"'

echo one >"$T/x1"
echo two >"$T/x2"
run_probe f3 mkdir "$T/d" -- mkdir "$T/d" -- rename "$T/x1" "$T/d/x1" -- rename_exchange "$T/d/x1" "$T/x2" \
	-- symlink "$T/x2" "$T/l" -- stat "$T/l" -- link "$T/x2" "$T/h" -- stat "$T/x2" -- unlink "$T/h" \
	-- unlink "$T/d" -- rmdir "$T/d" -- mkdir "$T/e" -- rmdir "$T/e" -- rmdir "$T/e"
valid f3
check "mkdir ok, again EEXIST" "$(get f3 0 ok):$(get f3 1 errno)" 'true:"EEXIST"'
check "rename moved the file" "$(get f3 2 ok):$([ -e "$T/x1" ] && echo x1)" "true:"
check "rename_exchange swapped contents" "$(get f3 3 ok):$(cat "$T/x2"):$(cat "$T/d/x1")" "true:one:two"
check "symlink + lstat: type and target" "$(get f3 5 type):$(get f3 5 target)" "\"symlink\":\"$T/x2\""
check "link: nlink 2" "$(get f3 6 ok):$(get f3 7 nlink)" "true:2"
check "unlink ok; host agrees" "$(get f3 8 ok):$([ -e "$T/h" ] && echo h)" "true:"
check "unlink of a directory: EISDIR" "$(get f3 9 errno)" '"EISDIR"'
check "rmdir of a non-empty dir: ENOTEMPTY" "$(get f3 10 errno)" '"ENOTEMPTY"'
check "rmdir ok, again ENOENT" "$(get f3 12 ok):$(get f3 13 errno)" 'true:"ENOENT"'

mkdir "$T/ro"
chmod 555 "$T/ro"
chmod 444 "$T/a"
"${OTHER[@]}" "$PROBE" write "$T/ro/f" x -- append "$T/a" x -- unlink "$T/a" >"$T/f4.out" 2>/dev/null </dev/null
valid f4
check "write into a dir we may not write: EACCES at open" "$(get f4 0 errno):$(get f4 0 step)" '"EACCES":"open"'
check "append to a file we may not write: EACCES" "$(get f4 1 errno)" '"EACCES"'
chmod 755 "$T/ro"

# ---- mounts: EROFS, remount, umount inside a private mount namespace
mkdir -p "$T/m/ro" "$T/m/tmp"
if "${MNTNS[@]}" true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner sh
	"${MNTNS[@]}" sh -c '
		mount --bind "$1/m/ro" "$1/m/ro" && mount -o remount,bind,ro "$1/m/ro" &&
		mount -t tmpfs none "$1/m/tmp" && touch "$1/m/tmp/marker" &&
		"$2" write "$1/m/ro/f" x -- remount "$1/m/ro" -- write "$1/m/ro/f" y -- stat "$1/m/tmp/marker" \
			-- umount "$1/m/tmp" -- stat "$1/m/tmp/marker"' sh "$T" "$PROBE" >"$T/m1.out" 2>"$T/m1.err" </dev/null
	valid m1
	check "write on a read-only bind mount: EROFS" "$(get m1 0 errno)" '"EROFS"'
	check "remount read-write succeeds where permitted" "$(get m1 1 ok):$(get m1 2 ok)" "true:true"
	check "umount succeeds where permitted" "$(get m1 3 ok):$(get m1 4 ok):$(get m1 5 errno)" 'true:true:"ENOENT"'
	# two tmpfs stacked on one point (a name with a space): mountinfo must
	# report the upper one, which the path really uses, by its id
	mkdir -p "$T/m/a b"
	# shellcheck disable=SC2016 # expanded by the inner sh
	"${MNTNS[@]}" sh -c '
		mount -t tmpfs -o size=8k lower "$1/m/a b" &&
		mount -t tmpfs -o nosuid,size=16k upper "$1/m/a b" && ln -s / "$1/m/a b/link" &&
		mount -o remount,bind,ro,nosuid "$1/m/a b" &&
		"$2" mountinfo "$1/m/a b" -- mountinfo "$1/m/a b/link" -- mountinfo "$1/m/nothing"' \
		sh "$T" "$PROBE" >"$T/m3.out" 2>"$T/m3.err" </dev/null
	valid m3
	check "mountinfo: the upper of two stacked mounts, escapes decoded" \
		"$(get m3 0 mount_point):$(get m3 0 fstype):$(get m3 0 source)" "\"$T/m/a b\":\"tmpfs\":\"upper\""
	case $(get m3 0 options) in
	'"ro,nosuid'*) ok "mountinfo: per-mount options of the upper mount" ;;
	*) notok "mountinfo: per-mount options of the upper mount (got $(get m3 0 options))" ;;
	esac
	check "mountinfo of a symlink: the mount holding the link, not its target" \
		"$(get m3 1 mount_point)" "\"$T/m/a b\""
	check "mountinfo of a missing path: ENOENT at statx" "$(get m3 2 errno):$(get m3 2 step)" '"ENOENT":"statx"'
else
	for _ in 1 2 3 4 5 6 7 8; do skip "no private mount namespace here"; done
fi
# Unprivileged, outside any namespace: refused before anything is touched.
"${OTHER[@]}" "$PROBE" remount "$T" -- umount "$T" >"$T/m2.out" 2>/dev/null </dev/null
check "remount without privilege: EPERM" "$(get m2 0 errno)" '"EPERM"'
check "umount without privilege: EPERM" "$(get m2 1 errno)" '"EPERM"'

# ---- open flags, chmod, an O_TMPFILE linked to a name
printf 'hello' >"$T/of"
ln -s "$T/of" "$T/ol"
run_probe o1 open "$T/of" wronly,trunc -- open "$T/on" wronly,creat,excl -- open "$T/on" creat,excl \
	-- open "$T/ol" rdonly,nofollow -- chmod "$T/on" 4710 -- tmpfile_link "$T" "$T/ot" "tmp text" \
	-- tmpfile_link "$T" "$T/of" x -- open "$T/of" rdonly,directory
valid o1
check "open wronly,trunc: ok, the file emptied" "$(get o1 0 ok):$(wc -c <"$T/of")" "true:0"
check "open creat,excl: made, then EEXIST" "$(get o1 1 ok):$(get o1 2 errno):$([ -f "$T/on" ] && echo f)" 'true:"EEXIST":f'
check "open nofollow of a symlink: ELOOP" "$(get o1 3 errno):$(get o1 3 step)" '"ELOOP":"open"'
check "chmod 4710: the mode set" "$(get o1 4 ok):$(stat -c %a "$T/on")" "true:4710"
check "tmpfile_link: the anonymous file has the name and the text" "$(get o1 5 ok):$(cat "$T/ot")" "true:tmp text"
check "tmpfile_link onto an existing name: EEXIST at link" "$(get o1 6 errno):$(get o1 6 step)" '"EEXIST":"link"'
check "open rdonly,directory of a file: ENOTDIR" "$(get o1 7 errno)" '"ENOTDIR"'

# ---- processes
sleep 60 &
S1=$!
PIDS+=("$S1")
sleep 0.1
printf '%s\n' "$S1" >"$T/s1.pid"
printf 'x%s\n' "$S1" >"$T/bad.pid"
run_probe p4 ptrace "@$T/s1.pid" -- process_vm_readv "@$T/s1.pid" -- ptrace "@$T/none.pid" \
	-- process_vm_readv "@$T/bad.pid"
run_probe p1 ptrace "$S1" -- process_vm_readv "$S1" -- ptrace_parent -- kill "$S1" TERM
valid p1
check "ptrace of our own-user process: ok" "$(get p1 0 ok)" true
check "process_vm_readv of our own-user process: 64 bytes" "$(get p1 1 ok):$(get p1 1 bytes)" "true:64"
check "ptrace @PIDFILE: the pid read from the file" "$(get p4 0 ok):$(get p4 0 pid)" "true:$S1"
check "process_vm_readv @PIDFILE: 64 bytes" "$(get p4 1 ok):$(get p4 1 bytes)" "true:64"
check "ptrace @PIDFILE missing: ENOENT at pidfile" "$(get p4 2 errno):$(get p4 2 step)" '"ENOENT":"pidfile"'
check "process_vm_readv @PIDFILE without a pid: EINVAL at pidfile" "$(get p4 3 errno):$(get p4 3 step)" \
	'"EINVAL":"pidfile"'
YAMA=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if [ "$UID_NOW" != 0 ] && [ "$YAMA" -ge 1 ]; then
	check "ptrace_parent under Yama: EPERM" "$(get p1 2 errno)" '"EPERM"'
else
	check "ptrace_parent: ok, and it is this shell" "$(get p1 2 ok):$(get p1 2 pid)" "true:$$"
fi
wait "$S1" 2>/dev/null
S1_STATUS=$?
forget "$S1"
check "kill TERM reached the process (status 143)" "$(get p1 3 ok):$S1_STATUS" "true:143"
# Never a reaped pid (it may be recycled already): one above any pid_max.
run_probe p2 kill 2147483647 TERM
check "kill of a pid that does not exist: ESRCH" "$(get p2 0 errno)" '"ESRCH"'
"${OTHER[@]}" "$PROBE" ptrace 1 -- process_vm_readv 1 >"$T/p3.out" 2>/dev/null </dev/null
if [ "$(stat -c %u /proc/1)" = 0 ]; then
	check "ptrace of another user's process: EPERM at attach" "$(get p3 0 errno):$(get p3 0 step)" '"EPERM":"attach"'
	check "process_vm_readv of another user's process: EPERM" "$(get p3 1 errno)" '"EPERM"'
else
	skip "pid 1 is not root's"
	skip "pid 1 is not root's"
fi

START=$(date +%s%N)
run_probe p4 sleep 300 -- getpid
END=$(date +%s%N)
check "sleep 300 lasts at least 300 ms" "$(( (END - START) >= 300000000 )):$(get p4 0 ok)" "1:true"

run_probe p5 getpid -- exit 7 -- getpid
check "exit 7: status 7, its line printed, nothing after" "$RC:$("$PY" "$T/j.py" count "$T/p5.out"):$(get p5 1 code)" "7:2:7"
run_probe p6 signal TERM -- getpid
check "signal TERM: killed by SIGTERM after printing its line" "$RC:$(get p6 0 signal):$("$PY" "$T/j.py" count "$T/p6.out")" "143:15:1"
run_probe p7 signal CHLD -- getpid
valid p7
check "signal CHLD (not fatal): one line for it, then the next op" "$RC:$("$PY" "$T/j.py" count "$T/p7.out"):$(get p7 1 op)" '0:2:"getpid"'

FOO=$'va"l\nue' run_probe p8 env FOO -- env SANDPROOF_SURELY_UNSET
check "env: exact value" "$(get p8 0 value)" '"va\"l\nue"'
check "env: unset is null" "$(get p8 1 value)" null

run_probe p9 flood 100000 -- flood 5000 stderr -- getpid
valid p9 filler
check "flood stdout: exactly N filler bytes, then JSON lines" "$("$PY" "$T/j.py" filler "$T/p9.out"):$(get p9 0 written)" "100000:100000"
check "flood stderr: exactly N bytes" "$(wc -c <"$T/p9.err"):$(get p9 1 written)" "5000:5000"

# Resource operations, each bounded by its own argument.
TAG=sandproof-forkn-tag-$$
run_probe r1 forkn 5 "$TAG" -- getpid
valid r1
check "forkn 5: five children forked" "$(get r1 0 ok):$(get r1 0 forked)" "true:5"
for _ in $(seq 100); do
	[ -z "$(pgrep -f "$TAG")" ] && break
	sleep 0.02
done
check "forkn children die with the probe" "$(pgrep -f "$TAG" | wc -l)" 0
run_probe r2 openn 50 -- alloc 8000000 -- fill "$T/r2f" 200000 -- fill /dev/full 10 -- spin 50
valid r2
check "openn: 50 opened" "$(get r2 0 ok):$(get r2 0 opened)" "true:50"
check "alloc: every byte touched" "$(get r2 1 ok):$(get r2 1 bytes)" "true:8000000"
check "fill: exactly BYTES written" "$(get r2 2 written):$(wc -c <"$T/r2f")" "200000:200000"
check "fill /dev/full: ENOSPC at write, 0 written" "$(get r2 3 errno):$(get r2 3 step):$(get r2 3 written)" '"ENOSPC":"write":0'
check "spin 50: at least 50 ms of CPU" "$(get r2 4 ok):$(( $(get r2 4 cpu_ms) >= 50 ))" "true:1"
(ulimit -n 20; "$PROBE" openn 10 -- openn 10 -- openn 100 >"$T/r3.out" 2>"$T/r3.err" </dev/null)
check "openn under ulimit -n 20: 10 and 10 again (closed), then EMFILE below 20" \
	"$(get r3 0 opened):$(get r3 1 opened):$(get r3 2 errno):$(get r3 2 step):$(( $(get r3 2 opened) < 20 ))" \
	'10:10:"EMFILE":"open":1'

# A probe killed mid-run leaves only complete lines.  Killed once it has
# printed its sentinel and the write's line (its output file made before it
# starts; the wait bounded, ending if the probe does).
two_lines() { [ "$(grep -c . "$T/k1.out")" -ge 2 ]; }
: >"$T/k1.out"
"$PROBE" write "$T/k" x -- sleep 5000 >"$T/k1.out" 2>/dev/null </dev/null &
KP=$!
PIDS+=("$KP")
sc_wait 60 "$KP" two_lines
kill -KILL "$KP"
sc_reap 30 "$KP"
forget "$KP"
valid k1
check "killed probe: sentinel and the finished op are there" "$("$PY" "$T/j.py" count "$T/k1.out")" 1

# spawn_daemon: the probe returns although the daemon lives on, and the
# daemon holds none of the probe's output (the $(...) would hang otherwise).
# The reader is bounded by timeout; the daemon is not waited for by bash.
START=$(date +%s%N)
"$PROBE" spawn_daemon "$T/daemon.pid" 2>/dev/null </dev/null | timeout 5 cat >"$T/d1.out"
END=$(date +%s%N)
DP=$(cat "$T/daemon.pid" 2>/dev/null)
check "spawn_daemon: the probe's stdout closes when the probe exits" "$(( (END - START) < 4000000000 ))" 1
check "spawn_daemon: ok, pid field is the pidfile's" "$(get d1 0 ok):$(get d1 0 pid)" "true:${DP:-none}"
# Signalled only when the pid really is our probe binary.
if [ -n "$DP" ] && [ "$(readlink "/proc/$DP/exe" 2>/dev/null)" = "$PROBE" ]; then
	PROBE_PID=$(get d1 sentinel pid)
	read -r _ _ _ DPPID _ DSID _ <"/proc/$DP/stat"
	check "daemon alive in another session, not the probe's child" \
		"$([ "$DPPID" != "$PROBE_PID" ] && [ "$DSID" != "$PROBE_PID" ] && [ "$DSID" != "$(ps -o sid= $$ | tr -d ' ')" ] && echo yes)" yes
	check "daemon stdout is /dev/null" "$(readlink "/proc/$DP/fd/1")" /dev/null
	kill -KILL "$DP"
else
	notok "daemon alive in another session, not the probe's child (no daemon)"
	notok "daemon stdout is /dev/null (no daemon)"
fi

# ---- group: the next N ops in a forked child, isolated from the ops after it
run_probe g1 getpid -- group 3 -- unshare_user -- getpid -- exit 7 -- getpid -- group 1 -- signal KILL -- group 5 -- write "$T/g1f" x
check "group: the probe exits 0 whatever its groups did" "$RC" 0
check "group: its line gives the child's exit status" "$(get g1 1 ok):$(get g1 1 exit):$(get g1 1 signal)" "true:7:null"
check "group: its ops run in the child" "$([ "$(get g1 3 pid)" != "$(get g1 0 pid)" ] && echo child)" child
check "group: an op after it runs in the parent, untouched by the group's unshare" \
	"$(get g1 5 pid):$(get g1 5 uid)" "$(get g1 0 pid):$(get g1 0 uid)"
check "group: a child killed by a signal" "$(get g1 6 exit):$(get g1 6 signal)" "null:9"
check "group: N past the end runs what is left" "$(get g1 8 exit):$(cat "$T/g1f" 2>/dev/null)" "0:x"
check "group: its line follows its ops' lines" \
	"$(grep -n '"i":4,' "$T/g1.out" | cut -d: -f1)<$(grep -n '"i":1,' "$T/g1.out" | cut -d: -f1)" \
	"$(grep -n '"i":4,' "$T/g1.out" | cut -d: -f1)<$(( $(grep -n '"i":4,' "$T/g1.out" | cut -d: -f1) + 1 ))"
run_probe g2 group 0 -- getpid
check "group 0 is a usage error" "$RC:$(wc -c <"$T/g2.out")" "2:0"

# ---- privileges
run_probe c1 caps -- no_new_privs
check "caps: the five sets as in /proc of this shell" \
	"$(get c1 0 eff):$(get c1 0 prm):$(get c1 0 bnd)" \
	"\"$(awk '/^CapEff/{print $2}' /proc/$$/status)\":\"$(awk '/^CapPrm/{print $2}' /proc/$$/status)\":\"$(awk '/^CapBnd/{print $2}' /proc/$$/status)\""
check "caps: inh and amb present" "$(get c1 0 inh | wc -c):$(get c1 0 amb | wc -c)" "19:19"
check "no_new_privs as in this shell" "$(get c1 1 value)" "$(awk '/^NoNewPrivs/{print $2}' /proc/$$/status)"
# Without /proc the probe falls back to capget and prctl: same five sets.
if "${MNTNS[@]}" true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner sh
	"${MNTNS[@]}" sh -c '"$1" caps && mount -t tmpfs none /proc && "$1" caps' sh "$PROBE" >"$T/c6.out" 2>/dev/null </dev/null
	sed -n '1,2p' "$T/c6.out" >"$T/c6a.out"
	sed -n '3,4p' "$T/c6.out" >"$T/c6b.out"
	check "caps without /proc: from syscalls, same sets" \
		"$(get c6b 0 source):$(get c6b 0 inh)$(get c6b 0 prm)$(get c6b 0 eff)$(get c6b 0 bnd)$(get c6b 0 amb)" \
		"\"syscall\":$(get c6a 0 inh)$(get c6a 0 prm)$(get c6a 0 eff)$(get c6a 0 bnd)$(get c6a 0 amb)"
else
	skip "no private mount namespace here"
fi
setpriv --no-new-privs "$PROBE" no_new_privs >"$T/c2.out" </dev/null
check "no_new_privs under setpriv --no-new-privs: 1" "$(get c2 0 value)" 1
"${OTHER[@]}" "$PROBE" caps >"$T/c3.out" 2>/dev/null </dev/null
check "caps of an unprivileged user: eff empty" "$(get c3 0 eff)" '"0000000000000000"'

if unshare -U true 2>/dev/null; then WANT_U=true; else WANT_U=false; fi
run_probe c4 unshare_user
check "unshare_user agrees with unshare -U" "$(get c4 0 ok)" "$WANT_U"

run_probe c7 clone_user clone -- clone_user clone3
valid c7
check "clone_user clone and clone3 agree with unshare -U" "$(get c7 0 ok):$(get c7 1 ok)" "$WANT_U:$WANT_U"

# setns into our own mount namespace needs CAP_SYS_ADMIN over it
run_probe c8 setns /proc/self/ns/mnt -- setns "$T/nope"
if [ "$UID_NOW" = 0 ]; then
	check "setns into our own mount namespace as root: ok" "$(get c8 0 ok)" true
else
	check "setns without CAP_SYS_ADMIN: EPERM at setns" "$(get c8 0 errno):$(get c8 0 step)" '"EPERM":"setns"'
fi
check "setns of a missing file: ENOENT at open" "$(get c8 1 errno):$(get c8 1 step)" '"ENOENT":"open"'

# x32 numbers reach the kernel on every x86_64 kernel: the pid, or ENOSYS
# without the x32 ABI
run_probe c9 foreign_abi x32
if [ "$(uname -m)" = x86_64 ]; then
	case "$(get c9 0 ok):$(get c9 0 errno)" in
	true:null | 'false:"ENOSYS"') ok "foreign_abi x32: the pid or ENOSYS" ;;
	*) notok "foreign_abi x32: the pid or ENOSYS (got $(get c9 0 ok):$(get c9 0 errno))" ;;
	esac
else
	check "foreign_abi off x86_64: EOPNOTSUPP at arch" "$(get c9 0 errno):$(get c9 0 step)" '"EOPNOTSUPP":"arch"'
fi
run_probe u7 foreign_abi x64
check "foreign_abi of an unknown ABI: usage error" "$RC:$(wc -c <"$T/u7.out")" "2:0"

IOU=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)
run_probe c5 io_uring
if [ "$IOU" = 0 ] || { [ "$IOU" = 1 ] && [ "$UID_NOW" = 0 ]; }; then
	check "io_uring setup allowed here: ok" "$(get c5 0 ok)" true
elif [ "$IOU" = 2 ]; then
	check "io_uring disabled: EPERM" "$(get c5 0 errno)" '"EPERM"'
else
	skip "io_uring_disabled=1 for a non-root user depends on its groups"
fi

run_probe s1 socket packet raw -- socket raw -- socket inet stream -- socket inet6 dgram udp \
	-- socket unix seqpacket -- socket netlink raw -- socket vsock stream -- socket bluetooth raw
valid s1
if [ "$UID_NOW" = 0 ]; then
	check "socket packet as root: ok" "$(get s1 0 ok)" true
	check "socket raw as root: ok" "$(get s1 1 ok)" true
else
	check "socket packet unprivileged: EPERM" "$(get s1 0 errno)" '"EPERM"'
	check "socket raw unprivileged: EPERM" "$(get s1 1 errno)" '"EPERM"'
fi
check "ordinary sockets: ok" "$(get s1 2 ok):$(get s1 3 ok):$(get s1 4 ok):$(get s1 5 ok)" "true:true:true:true"
run_probe s3 socketpair unix stream -- socketpair unix dgram -- socketpair inet stream
valid s3
check "socketpair unix stream and dgram: ok; inet: EOPNOTSUPP" \
	"$(get s3 0 ok):$(get s3 1 ok):$(get s3 2 errno)" 'true:true:"EOPNOTSUPP"'

"${OTHER[@]}" "$PROBE" socket packet raw -- socket raw raw icmp >"$T/s2.out" 2>/dev/null </dev/null
check "socket packet and raw as nobody: EPERM" "$(get s2 0 errno):$(get s2 1 errno)" '"EPERM":"EPERM"'

# tiocsti: without a terminal, and with a private pty as controlling tty
setsid "$PROBE" tiocsti >"$T/t1.out" 2>/dev/null </dev/null
check "tiocsti without a terminal: ENXIO / ENOTTY" \
	"$(get t1 0 ok):$(get t1 0 tty_errno):$(get t1 0 fd0_errno):$(get t1 0 errno)" 'false:"ENXIO":"ENOTTY":"ENOTTY"'
# (bounded: the reader waits for the pty's end of file)
timeout 60 "$PY" - "$PROBE" >"$T/t2.out" 2>/dev/null <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "tiocsti"])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
for l in out.replace(b"\r", b"").split(b"\n"):
    if l.find(b"{") >= 0:
        sys.stdout.write(l[l.find(b"{"):].decode() + "\n")
EOF
LEGACY=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)
if [ "$UID_NOW" = 0 ] || [ "$LEGACY" = 1 ]; then
	check "tiocsti on its own pty: injected via /dev/tty and fd 0" "$(get t2 0 tty_ok):$(get t2 0 fd0_ok):$(get t2 0 ok)" "true:true:true"
else
	check "tiocsti on its own pty with legacy_tiocsti=0: EIO" "$(get t2 0 tty_errno)" '"EIO"'
fi
# tiocsti_pty: the probe's own pty, no terminal from the caller
setsid "$PROBE" tiocsti_pty >"$T/t3.out" 2>/dev/null </dev/null
if [ "$UID_NOW" = 0 ] || [ "$LEGACY" = 1 ]; then
	check "tiocsti_pty: injected into its own pty, and echoed" "$(get t3 0 ok):$(get t3 0 echoed)" "true:true"
else
	check "tiocsti_pty with legacy_tiocsti=0: EIO at ioctl" "$(get t3 0 errno):$(get t3 0 step)" '"EIO":"ioctl"'
fi

# ---- network, only inside a network namespace created here
if "${NETNS[@]}" true 2>/dev/null; then
	cat >"$T/net.sh" <<'EOF'
P=$1 T=$2 PY=$3
. "$4" # sc_wait, sc_reap: every wait on a background job below is bounded
"$P" connect tcp 127.0.0.1 9 -- connect udp 127.0.0.1 9 >"$T/n1.out"
ip link set lo up
"$P" connect tcp 127.0.0.1 9 -- connect udp 127.0.0.1 9 -- connect tcp ::1 9 \
	-- listen_echo tcp 127.0.0.1 7001 -- connect tcp 127.0.0.1 7001 \
	-- listen_echo udp 127.0.0.1 7002 -- connect udp 127.0.0.1 7002 \
	-- listen_echo tcp ::1 7003 -- connect tcp ::1 7003 \
	-- bind tcp 127.0.0.1 0 -- bind udp 192.0.2.1 53 -- connect tcp 192.0.2.1 80 \
	-- listen_echo tcp 127.0.0.1 7005 >"$T/n2.out"
# 192.0.2.0/24 routed into this namespace's loopback: nothing answers and
# nothing leaves, so connects time out.
ip route add 192.0.2.0/24 dev lo
"$P" connect tcp 192.0.2.2 80 -- connect udp 192.0.2.2 53 >"$T/n3.out"
"$PY" -c '
import socket, sys, time
t = sys.argv[1]
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); a.bind(t + "/us"); a.listen(1)
b = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); b.bind(t + "/ud")
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.bind("\0sandproof-probe-test"); c.listen(1)
open(t + "/ready", "w").close()
time.sleep(60)' "$T" &
L=$!
sc_wait 60 "$L" test -e "$T/ready" # made after the three sockets listen
: >"$T/plainfile"
"$P" unix_connect "$T/us" -- unix_connect "$T/ud" -- unix_connect "$T/nope" -- unix_connect "$T/plainfile" \
	-- abstract_unix_connect sandproof-probe-test -- abstract_unix_connect sandproof-probe-none >"$T/n4.out"
kill "$L"
sc_reap 30 "$L"
# listen_count: the host-side listener counts who reached it; connect_from
# binds first (to another loopback address, 127.0.0.2: still lo).  Its
# window (10 s from its ready file, renamed into place whole) is what the
# connects below have to arrive in, on a loaded machine too.
"$P" listen_count tcp 127.0.0.1 0 10000 "$T/lc.ready" >"$T/n7.out" &
LC=$!
sc_wait 60 "$LC" test -s "$T/lc.ready"
LP=$(cat "$T/lc.ready")
"$P" connect tcp 127.0.0.1 "$LP" -- connect_from tcp 127.0.0.2 127.0.0.1 "$LP" \
	-- connect_from tcp 127.0.0.1 127.0.0.1 9 -- connect_from tcp 192.0.2.77 127.0.0.1 "$LP" >"$T/n8.out"
sc_reap 60 "$LC"
: >"$T/n5.out"
"$P" listen_echo tcp 127.0.0.1 7004 -- sleep 5000 >"$T/n5.out" &
K=$!
sc_wait 60 "$K" grep -q listen_echo "$T/n5.out"
kill -KILL "$K"
sc_reap 30 "$K"
# its echo server dies with it (PDEATHSIG): connects are refused within
# the bound (the first refusal ends the wait; n6 keeps the last answer)
refused() { "$P" connect tcp 127.0.0.1 7004 >"$T/n6.out"; grep -q ECONNREFUSED "$T/n6.out"; }
sc_wait 30 "" refused
EOF
	"${NETNS[@]}" bash "$T/net.sh" "$PROBE" "$T" "$PY" "$(dirname "$0")/../../tests/sc_lib.sh" \
		2>"$T/net.err" </dev/null
	for f in n1 n2 n3 n4 n5 n6 n7 n8; do valid $f; done
	check "loopback down: ENETUNREACH (tcp, udp)" "$(get n1 0 errno):$(get n1 1 errno)" '"ENETUNREACH":"ENETUNREACH"'
	check "closed tcp port: ECONNREFUSED at connect" "$(get n2 0 errno):$(get n2 0 step)" '"ECONNREFUSED":"connect"'
	check "closed udp port: ECONNREFUSED at recv" "$(get n2 1 errno):$(get n2 1 step)" '"ECONNREFUSED":"recv"'
	check "closed tcp port on ::1: ECONNREFUSED" "$(get n2 2 errno)" '"ECONNREFUSED"'
	check "listen_echo tcp then connect in the same probe: ok" "$(get n2 3 port):$(get n2 4 ok)" "7001:true"
	check "listen_echo udp then connect udp: reply came" "$(get n2 6 ok):$(get n2 6 reply_bytes)" "true:1"
	check "listen_echo tcp on ::1 then connect: ok" "$(get n2 8 ok)" true
	check "bind port 0: ok with the port chosen" "$(get n2 9 ok):$(( $(get n2 9 port) > 0 ))" "true:1"
	check "bind to an address not here: EADDRNOTAVAIL" "$(get n2 10 errno)" '"EADDRNOTAVAIL"'
	check "connect without a route: ENETUNREACH" "$(get n2 11 errno)" '"ENETUNREACH"'
	ALIVE=""
	for k in 3 5 7 12; do
		sp=$(get n2 $k server_pid)
		[ -d "/proc/$sp" ] && ALIVE="$ALIVE $sp"
	done
	check "echo servers (one never called) are gone when the probe ends" "$(get n2 12 ok):$ALIVE" "true:"
	check "unanswered tcp: ETIMEDOUT" "$(get n3 0 errno):$(get n3 0 step)" '"ETIMEDOUT":"connect"'
	check "unanswered udp: ETIMEDOUT at recv" "$(get n3 1 errno):$(get n3 1 step)" '"ETIMEDOUT":"recv"'
	check "unix_connect stream and dgram listeners: ok" "$(get n4 0 type):$(get n4 1 type)" '"stream":"dgram"'
	check "unix_connect missing: ENOENT; not a socket: ECONNREFUSED" "$(get n4 2 errno):$(get n4 3 errno)" '"ENOENT":"ECONNREFUSED"'
	check "abstract_unix_connect: ok, missing name ECONNREFUSED" "$(get n4 4 ok):$(get n4 5 errno)" 'true:"ECONNREFUSED"'
	check "echo server (listening: $(get n5 0 ok)) dies with a killed probe" "$(get n5 0 ok):$(get n6 0 errno)" \
		'true:"ECONNREFUSED"'
	check "listen_count counted the plain and the bound connect" "$(get n7 0 ok):$(get n7 0 accepted)" "true:2"
	check "connect_from: bound, connected; closed port ECONNREFUSED; foreign source EADDRNOTAVAIL at bind" \
		"$(get n8 0 ok):$(get n8 1 ok):$(get n8 2 errno):$(get n8 3 errno):$(get n8 3 step)" \
		'true:true:"ECONNREFUSED":"EADDRNOTAVAIL":"bind"'
else
	skip "cannot create a network namespace"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
