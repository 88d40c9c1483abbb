#!/bin/sh
# test_seatbelt_run.sh SANDPROOF_REF SANDPROOF - the macOS backend through
# `sandproof-ref run`, checked on the host (platforms/macos/README.md):
#   - outcome typing: success with both streams captured, an exit code, a
#     signal, stdin fed, a command not found (executable_not_found, nothing
#     started);
#   - timeout: timed_out, and the command's process group is killed (a
#     background sleeper it started is gone afterwards, checked by pid);
#   - runtime roots: TMPDIR names the root's tmp/ itself (RT-3), which
#     stays after the run with what the command left; the root's lease is
#     held while the command runs (flock -n on it fails from inside, where
#     flock(1) exists);
#   - fail closed: a symlinked write root, a stated pids limit and (posix-sim
#     only: its sandbox-exec simulates them) a profile sandbox-exec refuses
#     and a sandbox-exec that hangs before the command (10 s) are
#     sandbox_setup_failure with their step, and the command's marker file
#     is absent from the host;
#   - the canary (platforms/macos/enforce/canary.c): enforcement.seatbelt
#     names how names are matched and the canary's checks; in the
#     posix-sim, with a stand-in that does not hold what the canary checks
#     (SANDPROOF_SIM_CANARY=run), the run is refused (step canary), the
#     command's marker is absent, and what the canary made is gone from the
#     host (the protected name, the outside directory); with network allow
#     no loopback check is made;
#   - a case-insensitive volume (the posix-sim as root: exFAT through FUSE
#     on a loop device, unmounted and detached after): name_matching
#     "case-insensitive", the canary also creates the protected name's
#     other-case spelling, and the refusal names both;
#   - honesty: backend "seatbelt-sim" and denials_reported false in the
#     posix-sim, whose doctor says SIMULATION and exits 1; "seatbelt" on
#     macOS, where a write outside the write root must also be absent from
#     the host (the one enforcement check: only a native run confines);
#   - `sandproof run --runner ref` records under the platform's own tag:
#     posix-sim.sqlite in the sim (never macos.sqlite), macos.sqlite on macOS.
# Exit 0 when all hold, 1 otherwise (TAP lines say which).
set -u
ref=$1 sp=$2 base=$3
# Under BASE (CMakeLists.txt: /private/tmp on macOS, /dev/shm in the sim),
# canonical and never below /tmp or /var, whose spellings the generator
# refuses (macOS's are /private/tmp and /private/var); not the build tree,
# which may lie below /tmp.
area=$(mktemp -d "$base/sp-seatbelt-run.XXXXXX") || exit 1
loopdev=
cleanup() {
	if [ -n "$loopdev" ]; then
		umount "$area/exfat" 2>/dev/null
		losetup -d "$loopdev" 2>/dev/null
	fi
	rm -rf "$area"
}
trap cleanup EXIT
mkdir "$area/ws" "$area/hosttmp"
# The runner's own temp directory, where a run without a runtime root gets
# its private TMPDIR (canonical here; /tmp is refused by the generator).
TMPDIR=$area/hosttmp
export TMPDIR
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $1"; }
check() { if eval "$1"; then ok "$2"; else notok "$2"; fi; }
# jq-free JSON: j FILE EXPR... (o is the outcome): the values, space-separated.
j() {
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(" ".join(str(eval(e)) for e in sys.argv[2:]))' "$@"
}
# gone PID: no such process, or a zombie (killed; its reaper is not ours).
gone() { st=$(ps -o stat= -p "$1" 2>/dev/null); case $st in "" | Z*) true ;; *) false ;; esac; }
PATHS='"PATH":"/usr/bin:/bin"'
# req NAME COMMAND_JSON [EXTRA_TOP_LEVEL] [PROFILE_EXTRA] [ENV_EXTRA]: run it, outcome in $area/NAME.json
req() {
	printf '{"version":1,"command":%s,"cwd":"%s/ws","env":{%s%s},"profile":{"filesystem":{"write_roots":[{"root":"%s/ws"}]}%s}%s}' \
		"$2" "$area" "$PATHS" "${5:-}" "$area" "${4:-}" "${3:-}" >"$area/$1.req"
	"$ref" run --request "$area/$1.req" >"$area/$1.json" 2>"$area/$1.err"
	echo $? >"$area/$1.rc"
}

sim=1
[ "$(uname -s)" = Darwin ] && sim=0
backend=seatbelt-sim
[ $sim -eq 1 ] || backend=seatbelt

# ---- outcome typing ----------------------------------------------------------
req ok '["sh","-c","echo out; echo err >&2"]'
check '[ "$(cat $area/ok.rc)" = 0 ] && [ "$(j $area/ok.json o[\"kind\"])" = success ]' "success"
check '[ "$(j $area/ok.json "o[\"stdout\"]+o[\"stderr\"]")" = "out
err" ]' "stdout and stderr are captured apart"
check '[ "$(j $area/ok.json o[\"enforcement\"][\"backend\"])" = $backend ]' "backend is $backend"
if [ $sim -eq 1 ]; then
	check '[ "$(j $area/ok.json o[\"enforcement\"][\"denials_reported\"])" = False ]' \
		"posix-sim: denials_reported is false (no unified log)"
fi
req code '["sh","-c","exit 7"]'
check '[ "$(j $area/code.json "o[\"kind\"]" "o[\"exit\"][\"code\"]")" = "application_failure 7" ]' \
	"exit 7: application_failure, exit.code 7"
req sig '["sh","-c","kill -TERM $$"]'
check '[ "$(j $area/sig.json o[\"exit\"][\"signal_name\"])" = SIGTERM ]' "a signal: exit.signal_name SIGTERM"
req stdin '["cat"]' ',"stdin":"fed"'
check '[ "$(j $area/stdin.json o[\"stdout\"])" = fed ]' "stdin is fed to the command"
req nf '["no-such-command-sandproof"]'
check '[ "$(j $area/nf.json "o[\"kind\"]" "o[\"exec_error\"]")" = "executable_not_found ENOENT" ]' \
	"a command not found: executable_not_found, ENOENT"

check '[ -z "$(ls -A "$area/hosttmp")" ]' "without a runtime root: the private temp dir in the runner's TMPDIR is gone after the run"

# ---- timeout and the process group ------------------------------------------
req to '["sh","-c","sleep 300 & echo $! > bg; sleep 300"]' ',"timeout_ms":1500'
bg=$(cat "$area/ws/bg" 2>/dev/null || echo none)
check '[ "$(j $area/to.json o[\"kind\"])" = timed_out ]' "timeout: timed_out"
# killed with its group when the runner gave up; dying can take a moment
# on a loaded machine: gone within 10 s (ps: this test also runs on macOS)
i=0
while [ "$bg" != none ] && ! gone "$bg" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check '[ "$bg" != none ] && gone "$bg"' \
	"timeout: the background sleeper ($bg) of the command's group is gone"

# ---- runtime roots: private TMPDIR, the lease ---------------------------------
lease_cmd='echo "$TMPDIR"; touch "$TMPDIR/f"; for l in '"$area"'/rt/*.lease; do if command -v flock >/dev/null; then flock -n -x "$l" true && echo unleased || echo leased; else echo noflock; fi; done'
req rt "[\"sh\",\"-c\",\"$(printf '%s' "$lease_cmd" | sed 's/"/\\"/g')\"]" '' ",\"runtime\":{\"parent\":\"$area/rt\"}"
root=$(j "$area/rt.json" 'o["runtime"]["root"]' 2>/dev/null)
tmpd=$(j "$area/rt.json" 'o["stdout"].splitlines()[0]' 2>/dev/null)
check '[ -n "$root" ] && [ "$tmpd" = "$root/tmp" ]' \
	"TMPDIR is the runtime root's tmp/ itself, RT-3 ($tmpd)"
check '[ -n "$tmpd" ] && [ -f "$tmpd/f" ]' "the root's tmp/ stays after the run, with the command's file in it"
leased=$(j "$area/rt.json" 'o["stdout"].splitlines()[1]' 2>/dev/null)
case $leased in
noflock) skip "no flock(1) here: the lease is not checked from inside" ;;
*) check '[ "$leased" = leased ]' "the runtime root's lease is held while the command runs" ;;
esac

# ---- fail closed ---------------------------------------------------------------
marker=$area/ws/ran
ln -s "$area/ws" "$area/wslink"
printf '{"version":1,"command":["touch","%s"],"cwd":"%s","env":{%s},"profile":{"filesystem":{"write_roots":[{"root":"%s/wslink"}]}}}' \
	"$marker" "$area" "$PATHS" "$area" >"$area/link.req"
"$ref" run --request "$area/link.req" >"$area/link.json" 2>/dev/null
check '[ "$(j $area/link.json "o[\"kind\"]" "o[\"setup_error\"][\"step\"]" "o[\"setup_error\"][\"errno\"]")" = "sandbox_setup_failure write_root:$area/wslink ELOOP" ]' \
	"a symlinked write root: sandbox_setup_failure, write_root:<path>, ELOOP"
check '[ ! -e "$marker" ]' "... and the command did not run (no marker)"
req pids "[\"touch\",\"$marker\"]" '' ',"limits":{"pids":64}'
check '[ "$(j $area/pids.json "o[\"kind\"]" "o[\"setup_error\"][\"step\"]")" = "sandbox_setup_failure limits:pids" ] && [ ! -e "$marker" ]' \
	"a stated pids limit: refused (limits:pids), the command did not run"
if [ $sim -eq 1 ]; then
	req refuse "[\"touch\",\"$marker\"]" '' '' ',"SANDPROOF_SIM_REFUSE":"(version 1)"'
	check '[ "$(j $area/refuse.json "o[\"kind\"]" "o[\"setup_error\"][\"step\"]" "o[\"setup_error\"][\"errno\"]")" = "sandbox_setup_failure seatbelt EINVAL" ]' \
		"a profile sandbox-exec refuses: sandbox_setup_failure, step seatbelt, EINVAL"
	check '[ ! -e "$marker" ]' "... and the command did not run (no marker)"
	req hang "[\"touch\",\"$marker\"]" ',"timeout_ms":20000' '' ',"SANDPROOF_SIM_HANG":"1"'
	check '[ "$(j $area/hang.json "o[\"kind\"]" "o[\"setup_error\"][\"step\"]" "o[\"setup_error\"][\"errno\"]")" = "sandbox_setup_failure seatbelt ETIMEDOUT" ] && [ ! -e "$marker" ]' \
		"a sandbox-exec that never reaches the command: setup failure (ETIMEDOUT), the command did not run"
else
	skip "a refused profile is simulated by the posix-sim's sandbox-exec only"
	outside=$(cd "$area/.." && pwd -P)/sp-seatbelt-outside.$$
	req esc "[\"sh\",\"-c\",\"echo x > $outside\"]"
	check '[ ! -e "$outside" ]' "macOS: a write outside the write root is absent from the host"
	rm -f "$outside"
fi

# ---- the canary ------------------------------------------------------------------
check '[ "$(j $area/ok.json "o[\"enforcement\"][\"name_matching\"]" "\",\".join(o[\"enforcement\"][\"seatbelt\"][\"canary\"])")" = "normalization-insensitive loopback_connect,protected_create,write_outside" ]' \
	"enforcement: names matched normalization-insensitively; the canary checked loopback, a protected name, a write outside"
if [ $sim -eq 1 ]; then
	rm -rf "$area/ws/.git"
	req canary "[\"touch\",\"$marker\"]" '' '' ',"SANDPROOF_SIM_CANARY":"run"'
	det=$(j "$area/canary.json" 'o["setup_error"]["detail"]' 2>/dev/null)
	check '[ "$(j $area/canary.json "o[\"kind\"]" "o[\"setup_error\"][\"step\"]" "o[\"setup_error\"][\"errno\"]")" = "sandbox_setup_failure canary EPROTO" ]' \
		"a stand-in that does not hold what the canary checks: refused, step canary, EPROTO"
	check 'case $det in *"connected to 127.0.0.1:"*"created $area/ws/.git"*"wrote outside "*) true;; *) false;; esac' \
		"... naming what got through: the loopback connect, the protected name, the write outside ($det)"
	check '[ ! -e "$marker" ] && [ ! -e "$area/ws/.git" ] && [ -z "$(ls -A "$area/hosttmp")" ] && [ -z "$(ls -A "$area/ws" | grep sandproof-canary)" ]' \
		"... the command did not run, and nothing the canary made is left on the host"
	req canary_net "[\"touch\",\"$marker\"]" '' ',"network":{"mode":"allow"}' ',"SANDPROOF_SIM_CANARY":"run"'
	det=$(j "$area/canary_net.json" 'o["setup_error"]["detail"]' 2>/dev/null)
	check '[ "$(j $area/canary_net.json o[\"kind\"])" = sandbox_setup_failure ] && case $det in *connected*) false;; *"created $area/ws/.git"*) true;; *) false;; esac && [ ! -e "$marker" ]' \
		"with network allow: no loopback check, the protected name still refuses the run ($det)"
fi

# ---- a case-insensitive volume (posix-sim, root: exFAT through FUSE) -------------
if [ $sim -eq 1 ] && [ "$(id -u)" = 0 ] && command -v mkfs.exfat >/dev/null &&
	command -v mount.exfat-fuse >/dev/null && [ -e /dev/fuse ] &&
	truncate -s 32M "$area/exfat.img" && mkfs.exfat "$area/exfat.img" >/dev/null 2>&1 &&
	loopdev=$(losetup -f --show "$area/exfat.img" 2>/dev/null) && mkdir "$area/exfat" &&
	mount.exfat-fuse "$loopdev" "$area/exfat" >/dev/null 2>&1; then
	mkdir "$area/exfat/ws"
	ci_req() {
		printf '{"version":1,"command":["touch","%s"],"cwd":"%s/exfat/ws","env":{%s%s},"profile":{"filesystem":{"allow_temp":false,"write_roots":[{"root":"%s/exfat/ws"}]}}}' \
			"$marker" "$area" "$PATHS" "$2" "$area" >"$area/$1.req"
		"$ref" run --request "$area/$1.req" >"$area/$1.json" 2>"$area/$1.err"
	}
	ci_req ci_ok ''
	check '[ "$(j $area/ci_ok.json "o[\"kind\"]" "o[\"enforcement\"][\"name_matching\"]" "\",\".join(o[\"enforcement\"][\"seatbelt\"][\"canary\"])")" = "success case-insensitive loopback_connect,protected_create,protected_create_other_case,write_outside" ]' \
		"a case-insensitive volume (exFAT): name_matching case-insensitive, the canary also tries the other case"
	rm -f "$marker"
	ci_req ci_run ',"SANDPROOF_SIM_CANARY":"run"'
	det=$(j "$area/ci_run.json" 'o["setup_error"]["detail"]' 2>/dev/null)
	check 'case $det in *"created $area/exfat/ws/.git;"*"created $area/exfat/ws/.GIT;"*) true;; *) false;; esac && [ ! -e "$marker" ] && [ -z "$(ls -A "$area/exfat/ws")" ]' \
		"... a stand-in that lets it through is refused naming .git and .GIT, and nothing is left ($det)"
else
	skip "a case-insensitive volume: needs the posix-sim as root with exfat-fuse, mkfs.exfat and /dev/fuse"
fi

# ---- doctor --------------------------------------------------------------------
"$ref" doctor >"$area/doctor" 2>&1
drc=$?
if [ $sim -eq 1 ]; then
	check '[ $drc -eq 1 ] && grep -q SIMULATION "$area/doctor" && grep -q "CANNOT be enforced" "$area/doctor"' \
		"posix-sim: doctor says SIMULATION, the contract cannot be enforced, exit 1"
else
	check '[ $drc -eq 0 ] && grep -q "deny-default profile applied *yes" "$area/doctor"' \
		"macOS: doctor applies a deny-default profile and exits 0"
fi

# ---- the harness records under the platform's own tag ---------------------------
"$sp" run --runner ref --filter 'fs.workspace_writable' --out "$area/out" >"$area/run" 2>&1
tag=posix-sim other=macos
[ $sim -eq 1 ] || { tag=macos other=posix-sim; }
check '[ -f "$area/out/$tag.sqlite" ] && [ ! -e "$area/out/$other.sqlite" ]' \
	"sandproof run records in $tag.sqlite, never $other.sqlite"
check '[ "$(sqlite3 "$area/out/$tag.sqlite" "select group_concat(distinct os) from run")" = $tag ]' \
	"its run rows say os = $tag"

echo "1..$n"
[ $fail -eq 0 ]
