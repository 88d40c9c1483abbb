#!/bin/bash
# test_probe_wine.sh - smoke of the Windows probe (sandproof-probe.exe)
# under Wine, TAP.  Wine runs the probe's plumbing - its Win32 calls land
# on Linux files this script checks on the host side - and never counts as
# a Windows result: ACL denials for a restricted token's SIDs, junctions and
# Windows symlinks are native-only (platforms/windows/probe/README.md).
#
#   test_probe_wine.sh PATH/TO/sandproof-probe.exe [PATH/TO/linux/sandproof-probe]
#
# With the Linux probe given, its operation names are checked to be the
# Windows probe's too.  Prints "1..0 # SKIP reason" and exits 0 when wine is
# not installed; exits 1 when a check failed, 2 for bad arguments.
#
# Safety: the whole smoke runs in its own user, mount and network namespace
# (when the host allows one): /tmp is a private tmpfs there, so the Wine
# prefix, its wineserver directory and every file the probe touches vanish
# with it, and the network checks reach only the namespace's own loopback
# and the listeners this script starts on it.  Without a namespace the
# network checks are skipped (said so), the prefix lives in a temp dir of
# its own, its wineserver is ended (wineserver -k) and the dir removed.
set -u
# sc_wait, sc_reap: bounded waits on background jobs (read before the
# private /tmp is mounted; this file's own TAP helpers below replace its)
. "$(dirname "$0")/../../../harness/tests/sc_lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -f "$1" ] || { [ $# = 2 ] && [ ! -x "$2" ]; }; then
	echo "usage: test_probe_wine.sh PATH/TO/sandproof-probe.exe [PATH/TO/linux/sandproof-probe]" >&2
	exit 2
fi
if ! command -v wine >/dev/null 2>&1 || ! command -v wineserver >/dev/null 2>&1; then
	echo "1..0 # SKIP wine is not installed (Debian: wine64)"
	exit 0
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo /nonexistent)

# Once, from outside: re-run inside a user+mount+network namespace, the
# files handed in as open descriptors (a private /tmp hides their paths).
if [ -z "${SP_WINE_INNER:-}" ]; then
	if unshare -rnm --propagation private true 2>/dev/null; then
		exec 3<"$1" 4<"${2:-/dev/null}"
		SP_WINE_INNER=1 SP_WINE_LINUX=${2:+1} exec unshare -rnm --propagation private \
			"$BASH" "$0" /proc/self/fd/3
	fi
	SP_WINE_INNER=none
fi

NONET=""
if [ "$SP_WINE_INNER" = 1 ]; then
	mount -t tmpfs -o mode=1777 tmpfs /tmp || { echo "Bail out! private /tmp"; exit 1; }
	ip link set lo up 2>/dev/null || NONET="no loopback in the private network namespace (ip link failed)"
	T=$(mktemp -d /tmp/wineprobe.XXXXXX)
	cat /proc/self/fd/3 >"$T/probe.exe"
	[ -n "${SP_WINE_LINUX:-}" ] && cat /proc/self/fd/4 >"$T/linux-probe" && chmod 755 "$T/linux-probe"
else
	NONET="no user+network namespace on this host: no network check outside one"
	T=$(mktemp -d /tmp/wineprobe.XXXXXX)
	cp "$1" "$T/probe.exe"
	[ $# = 2 ] && cp "$2" "$T/linux-probe"
fi
# TMPDIR inside $T: Debian's wineserver leaves its $TMPDIR/wine-XXXXXX.
export WINEPREFIX="$T/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	wineserver -k 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

N=0 FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $1"; }
notok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; }
skip() { N=$((N + 1)); echo "ok $N - # SKIP $1"; }
check() { # check DESC ACTUAL EXPECTED
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (got [$2], want [$3])"; fi
}

# The Windows name of a host path: Wine maps / to Z:.
win() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }

# JSON checks, all through json.loads: "shape FILE NOPS" checks every line
# (the sentinel first, then one line per op with the reserved fields and
# the Chromium rule); "get FILE I KEY" prints one field of op I.
cat >"$T/j.py" <<'EOF'
import json, sys

def load(path):
    raw = open(path, "rb").read()
    if b"\r" in raw:
        raise ValueError("a carriage return in the output (stdout not binary)")
    text = raw.decode("utf-8")
    if not text.endswith("\n"):
        raise ValueError("last line incomplete")
    return [json.loads(l) for l in text.split("\n")[:-1]]

POLICY = {"EACCES", "EPERM", "EROFS"}

def shape(path, nops):
    ls = load(path)
    s = ls[0]
    assert set(s) == {"sentinel", "version", "pid"} and s["sentinel"] == "sandproof-probe" \
        and s["version"] == 1 and isinstance(s["pid"], int), "sentinel %r" % s
    assert len(ls) == nops + 1, "%d op lines for %d ops" % (len(ls) - 1, nops)
    for k, l in enumerate(ls[1:]):
        assert list(l)[:4] == ["i", "op", "ok", "errno"], "fields of %r" % l
        assert l["i"] == k and isinstance(l["ok"], bool), "line %r" % l
        if l["ok"]:
            assert l["errno"] is None and "step" not in l and "win32_error" not in l, "%r" % l
            continue
        assert isinstance(l["errno"], str) and l["errno"], "%r" % l
        if l.get("unsupported"):
            assert l["errno"] == "EOPNOTSUPP" and l["step"] == "unsupported_op", "%r" % l
            continue
        assert isinstance(l["denied"], bool), "no denied in %r" % l
        if "win32_error" in l:
            assert isinstance(l["win32_code"], int), "%r" % l
        # Chromium's rule: denied only for ERROR_ACCESS_DENIED / WSAEACCES,
        # and a policy errno name only when denied
        assert not l["denied"] or l.get("win32_code") in (5, 10013), "denied: %r" % l
        assert (l["errno"] in POLICY) == l["denied"], "errno vs denied: %r" % l

cmd = sys.argv[1]
try:
    if cmd == "shape":
        shape(sys.argv[2], int(sys.argv[3]))
        print("ok")
    else:
        v = load(sys.argv[2])[int(sys.argv[3]) + 1].get(sys.argv[4], "<absent>")
        print(v if isinstance(v, str) else json.dumps(v))
except Exception as e:  # the message is the test's diagnostic
    print("error: %s" % e)
EOF
get() { "$PY" "$T/j.py" get "$T/out" "$1" "$2"; }
# The fields of op I as "errno win32_error denied" (for a failure).
failure() { echo "$(get "$1" errno) $(get "$1" win32_error) $(get "$1" denied)"; }

# run NOPS ARGS...: the probe under Wine, stdout to $T/out, status in RC.
run() {
	local nops=$1
	shift
	wine "$T/probe.exe" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	SHAPE=$("$PY" "$T/j.py" shape "$T/out" "$nops")
}

if [ ! -x "$PY" ]; then
	echo "1..0 # SKIP no python3 to read the probe's JSON"
	exit 0
fi

W=$(win "$T")
mkdir "$T/w"
WD=$(win "$T/w")

# ---- 1. the file round trip, checked on the host side -----------------------
run 14 write "$WD\\a.txt" hello -- append "$WD\\a.txt" " world" -- read "$WD\\a.txt" \
	-- create "$WD\\new.txt" -- create "$WD\\new.txt" -- mkdir "$WD\\sub" \
	-- rename "$WD\\a.txt" "$WD\\sub\\b.txt" -- link "$WD\\sub\\b.txt" "$WD\\hl.txt" \
	-- stat "$WD\\hl.txt" -- list "$WD" -- rmdir "$WD\\sub" \
	-- mkdir "$WD\\empty" -- rmdir "$WD\\empty" -- stat "$WD\\sub"
check "round trip: exit status 0" "$RC" 0
check "round trip: JSON shape of every line (sentinel, fields, Chromium's rule)" "$SHAPE" ok
check "write+append+rename: the host file holds exactly the text" \
	"$(cat "$T/w/sub/b.txt" 2>&1)" "hello world"
check "write, append: bytes" "$(get 0 bytes) $(get 1 bytes)" "5 6"
check "read: data, bytes, truncated" "$(get 2 data)|$(get 2 bytes)|$(get 2 truncated)" \
	"hello world|11|false"
check "create: a new empty file on the host" "$(stat -c %s "$T/w/new.txt" 2>&1)" 0
check "create of an existing name: EEXIST, ERROR_FILE_EXISTS, not denied" \
	"$(failure 4)" "EEXIST ERROR_FILE_EXISTS false"
check "rename: the old name is gone on the host" "$(test -e "$T/w/a.txt" && echo there || echo gone)" gone
check "link: one inode under two names on the host" \
	"$(stat -c %i "$T/w/hl.txt" 2>&1) $(stat -c %h "$T/w/hl.txt" 2>&1)" "$(stat -c %i "$T/w/sub/b.txt" 2>&1) 2"
check "stat: type, size, nlink of the hard link" "$(get 8 type) $(get 8 size) $(get 8 nlink)" "file 11 2"
check "list: the names the host has, sorted" "$(get 9 entries | tr '\n' ' ')|$(get 9 count)" \
	"$(ls "$T/w" | LC_ALL=C sort | tr '\n' ' ')|$(ls "$T/w" | wc -l)"
check "list: the names are hl.txt new.txt sub" "$(get 9 entries | tr '\n' ' ')" "hl.txt new.txt sub "
check "rmdir of a non-empty directory: ENOTEMPTY, ERROR_DIR_NOT_EMPTY, not denied" \
	"$(failure 10)" "ENOTEMPTY ERROR_DIR_NOT_EMPTY false"
check "mkdir then rmdir: gone on the host" "$(test -e "$T/w/empty" && echo there || echo gone)" gone
check "stat of a directory: type dir" "$(get 13 type)" dir

# ---- 2. error names: nothing but ERROR_ACCESS_DENIED is a denial --------------
cp "$T/probe.exe" "$T/w/running.exe"
echo keep >"$T/w/ro.txt"
chmod 444 "$T/w/ro.txt"
run 11 read "$WD\\missing" -- read "$WD\\nodir\\x" -- read "$WD\\sub" -- unlink "$WD\\sub" \
	-- list "$WD\\new.txt" -- list "$WD\\nodir" -- unlink "$WD\\ro.txt" -- rename "$WD\\nodir\\x" "$WD\\y" \
	-- unlink "$WD\\hl.txt" -- write "$WD\\t.txt" "a longer text" -- write "$WD\\t.txt" x
check "errors: JSON shape" "$SHAPE" ok
check "read of a missing file: ENOENT, ERROR_FILE_NOT_FOUND, not denied" \
	"$(failure 0) $(get 0 step)" "ENOENT ERROR_FILE_NOT_FOUND false open"
check "read under a missing directory: ENOENT, ERROR_PATH_NOT_FOUND, not denied" \
	"$(failure 1)" "ENOENT ERROR_PATH_NOT_FOUND false"
check "read of a directory: EISDIR (ERROR_ACCESS_DENIED kept by name), not denied" \
	"$(failure 2) $(get 2 is_dir)" "EISDIR ERROR_ACCESS_DENIED false true"
check "unlink of a directory: EISDIR, not denied" "$(failure 3)" "EISDIR ERROR_ACCESS_DENIED false"
check "list of a file: ENOTDIR, ERROR_DIRECTORY, not denied" "$(failure 4)" "ENOTDIR ERROR_DIRECTORY false"
check "list of a missing directory: ENOENT, ERROR_PATH_NOT_FOUND" "$(failure 5)" \
	"ENOENT ERROR_PATH_NOT_FOUND false"
# Wine refuses deleting a read-only file as Windows does: ERROR_ACCESS_DENIED
# from the read-only attribute, not from an ACL (those are native-only)
check "unlink of a read-only file: EACCES, ERROR_ACCESS_DENIED, denied" "$(failure 6)" \
	"EACCES ERROR_ACCESS_DENIED true"
check "unlink refused: the host file is still there" "$(cat "$T/w/ro.txt" 2>&1)" keep
check "rename from a missing directory: ENOENT, not denied" "$(get 7 errno) $(get 7 denied)" "ENOENT false"
check "unlink: ok, and gone on the host" "$(get 8 ok) $(test -e "$T/w/hl.txt" && echo there || echo gone)" "true gone"
check "write over a longer file: the host file holds exactly the new text" "$(cat "$T/w/t.txt" 2>&1)" x
# a running image cannot be opened for writing: a sharing violation
wine "$T/w/running.exe" write "$WD\\running.exe" x >"$T/out" 2>"$T/err"
check "sharing violation: JSON shape" "$("$PY" "$T/j.py" shape "$T/out" 1)" ok
check "write to the running probe's own image: EBUSY, ERROR_SHARING_VIOLATION, not denied" \
	"$(failure 0)" "EBUSY ERROR_SHARING_VIOLATION false"
check "the running image is unchanged on the host" "$(cmp -s "$T/probe.exe" "$T/w/running.exe" && echo same)" same

# ---- 3. processes, environment, working directory ----------------------------
ARG='a b "c\" d\'
(cd "$T/w" && SP_WINE_VAR="v a l" wine "$T/probe.exe" spawn cmd /c "exit 7" \
	-- spawn "$WD\\running.exe" write "$WD\\argv.txt" "$ARG" -- spawn "$WD\\nosuch.exe" \
	-- env SP_WINE_VAR -- env SP_WINE_UNSET_VAR -- cwd -- getpid >"$T/out" 2>"$T/err")
SHAPE=$("$PY" "$T/j.py" shape "$T/out" 7)
check "processes: JSON shape" "$SHAPE" ok
check "spawn: the child's exit code" "$(get 0 ok) $(get 0 exit_code)" "true 7"
check "spawn: an argument with spaces, quotes and backslashes reaches the child intact" \
	"$(cat "$T/w/argv.txt" 2>&1)" "$ARG"
check "spawn of a missing program: ENOENT, ERROR_FILE_NOT_FOUND at create" \
	"$(failure 2) $(get 2 step)" "ENOENT ERROR_FILE_NOT_FOUND false create"
check "env: a set variable" "$(get 3 value)" "v a l"
check "env: an unset variable is null" "$(get 4 value)" null
check "cwd: the Windows name of the working directory" "$(get 5 path)" "$WD"
check "getpid: the sentinel's pid" "$(get 6 pid)" "$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["pid"])' "$T/out")"

# spawn_daemon: a process that outlives the probe, its pid in PIDFILE, its
# command line naming PIDFILE (the marker a census finds it by).  Under Wine
# the daemon is a Linux process whose command line is the Windows one: found
# here by the marker, and killed by pid at the end (cleanup's PIDS).
mark="sp-daemon-$$.pid"
run 2 spawn_daemon "$WD\\$mark" -- getpid
DPID=$(tr -d '\r\n' <"$T/w/$mark" 2>/dev/null)
check "spawn_daemon: ok, its pid the one in PIDFILE, the probe ended without waiting for it" \
	"$SHAPE $(get 0 ok) $RC $([ -n "$DPID" ] && [ "$(get 0 pid)" = "$DPID" ] && echo same)" "ok true 0 same"
LPIDS=$(SP_MARK=$mark "$PY" -c 'import os
m = os.environ["SP_MARK"].encode()
for p in os.listdir("/proc"):
    if p.isdigit() and int(p) != os.getpid():
        try:
            c = open("/proc/%s/cmdline" % p, "rb").read()
        except OSError:
            continue
        if m in c and b"86400000" in c:
            print(p)')
for p in $LPIDS; do PIDS+=("$p"); done
check "spawn_daemon: the daemon lives on after the probe, its command line naming PIDFILE" \
	"$([ -n "$LPIDS" ] && echo alive)" alive

# ---- 4. what Windows lacks, and the command line -----------------------------
run 2 ptrace 1 -- rename_exchange a b
check "unsupported: the typed shape" "$(get 0 errno) $(get 0 step) $(get 0 unsupported) $(get 1 unsupported)" \
	"EOPNOTSUPP unsupported_op true true"
run 3 sleep 1 -- exit 3 -- write "$WD\\after-exit" x
check "exit: the probe's status, its own line, no operation after it" \
	"$RC $(wc -l <"$T/out") $(get 1 code) $(test -e "$T/w/after-exit" && echo ran || echo none)" "3 3 3 none"
run 2 sleep 1 -- exit 3
check "sleep, exit: JSON shape" "$SHAPE" ok
run 0 nosuch_op
check "an unknown operation: exit 2, nothing on stdout" "$RC $(wc -c <"$T/out")" "2 0"
run 0 write "$WD\\z" x -- connect tcp not-an-address 1
check "a bad argument: exit 2, nothing run" "$RC $(test -e "$T/w/z" && echo ran || echo none)" "2 none"
if [ -x "$T/linux-probe" ]; then
	"$T/linux-probe" --help 2>&1 | awk '/^  /{print $1}' | sort >"$T/ops.linux"
	wine "$T/probe.exe" --help 2>&1 | tr -d '\r' | awk '/^  /{print $1}' | sort >"$T/ops.win"
	check "every operation of the Linux probe is named by the Windows probe" \
		"$(comm -23 "$T/ops.linux" "$T/ops.win" | tr '\n' ' ')" ""
else
	skip "operation names against the Linux probe: no Linux probe given"
fi

# ---- 5. symlink: Wine's CreateSymbolicLinkW ------------------------------------
run 1 symlink "sub" "$WD\\ln"
if [ -L "$T/w/ln" ]; then
	check "symlink: a link on the host pointing at the target" "$(readlink "$T/w/ln")" sub
elif [ "$(get 0 ok)" = true ]; then
	skip "symlink: Wine reported success and created nothing (a stub): native-only"
else
	check "symlink: JSON shape of the refusal" "$SHAPE" ok
fi

# ---- 6. network: the namespace's own loopback, our own listeners -------------
# The UI operations (wprobe_ui.c), unconfined under Wine: plumbing only (a
# clipboard round trip and one inserted event); what a job's UI limits and
# a desktop of the run's own make of them is native-only (priv.win_ui_*).
run 3 clipboard_write sandproof-clip -- clipboard_read -- sendinput
check "ui: JSON shape" "$SHAPE" ok
check "clipboard_write then clipboard_read: the text round-trips" \
	"$(get 0 ok) $(get 1 ok) $(get 1 data)" "true true sandproof-clip"
check "sendinput: one event inserted (unconfined)" "$(get 2 ok) $(get 2 inserted)" "true 1"

if [ -n "$NONET" ]; then
	skip "network: $NONET"
else
	cat >"$T/listen.py" <<'EOF'
import socket, select, sys, time
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (t.getsockname()[1], u.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
accepted = 0
end = time.time() + 120
while time.time() < end:
    r, _, _ = select.select([t, u], [], [], 0.5)
    if t in r:
        c, _ = t.accept(); c.close(); accepted += 1
        open(sys.argv[2], "w").write("%d\n" % accepted)
    if u in r:
        d, a = u.recvfrom(512); u.sendto(d, a)
EOF
	"$PY" "$T/listen.py" "$T/ports" "$T/accepted" &
	LSN=$!
	PIDS+=("$LSN")
	sc_wait 60 "$LSN" test -s "$T/ports" # renamed into place whole
	read -r TP UP <"$T/ports"
	# a port nobody holds in this private namespace: bound here, then closed;
	# one of each protocol: a port free for TCP may be held for UDP (once the
	# "closed" UDP port, picked by a TCP bind, answered with one byte: only
	# the echo above answers, so it was the echo's port)
	FREE=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	FREEU=$("$PY" -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run 6 connect tcp 127.0.0.1 "$TP" -- connect tcp 127.0.0.1 "$FREE" -- connect udp 127.0.0.1 "$UP" \
		-- connect udp 127.0.0.1 "$FREEU" -- bind tcp 127.0.0.1 0 -- connect_from tcp 127.0.0.1 127.0.0.1 "$TP"
	check "network: JSON shape" "$SHAPE" ok
	check "connect tcp to our listener: ok" "$(get 0 ok)" true
	# the listener counts an accept when its select loop comes round to it
	sc_wait 30 "$LSN" grep -qx 2 "$T/accepted"
	check "the listener saw both connections, connect and connect_from (host side)" \
		"$(cat "$T/accepted" 2>&1)" 2
	check "connect tcp to a closed port: ECONNREFUSED, WSAECONNREFUSED, not denied" \
		"$(failure 1) $(get 1 step)" "ECONNREFUSED WSAECONNREFUSED false connect"
	check "connect udp to our echo: a reply" "$(get 2 ok) $(get 2 reply_bytes)" "true 1"
	check "connect udp to a closed port: not ok, not denied, no reply" \
		"$(get 3 ok) $(get 3 denied) $(get 3 reply_bytes)" "false false <absent>"
	# Windows reports the ICMP port-unreachable as WSAECONNRESET on the
	# receive; Wine 8 leaves the socket silent (ETIMEDOUT)
	case "$(get 3 errno) $(get 3 step)" in
	"ECONNREFUSED recv") ok "connect udp to a closed port: ECONNREFUSED at recv" ;;
	"ETIMEDOUT recv") skip "udp port-unreachable: Wine reports silence (ETIMEDOUT); WSAECONNRESET is native-only" ;;
	*) notok "connect udp to a closed port: $(get 3 errno) at $(get 3 step)" ;;
	esac
	check "connect_from tcp, bound to 127.0.0.1: ok" "$(get 5 ok)" true
	check "bind to port 0: a port" "$(get 4 ok) $([ "$(get 4 port)" -gt 0 ] 2>/dev/null && echo port)" "true port"
	# the listener, by its own pid (PIDS[0] is spawn_daemon's process,
	# above, which cleanup kills), then out of PIDS: reaped, its pid is free
	kill -KILL "$LSN" 2>/dev/null
	sc_reap 30 "$LSN" 2>/dev/null # (bash would say "Killed")
	KEEP=()
	for p in "${PIDS[@]}"; do [ "$p" = "$LSN" ] || KEEP+=("$p"); done
	PIDS=("${KEEP[@]}")
fi

echo "1..$N"
if [ "$FAIL" -gt 0 ]; then
	echo "# $FAIL of $N failed"
	exit 1
fi
exit 0
