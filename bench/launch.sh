#!/bin/sh
# bench/launch.sh - launch cost of every runner, in one hyperfine run
# (whole-process wall time; never a test).
#
#   sh bench/launch.sh [BUILD_DIR]     (default ./build; needs hyperfine;
#                                       peers from ci/peers.sh when present)
#
# Policy for every runner: the whole filesystem read-only, one writable
# workspace, network deny, private /tmp.  Each peer gets the flags its
# adapter passes (docs/peers/*.md).  Two commands: /bin/true, and `git
# status` in the repository.  The main workspace is the realistic one: a
# fresh `git init` repository with one commit and nothing else, so
# `.git/hooks` and `.git/config` exist and `.agents` and `.zero` do not
# (sandproof-ref watches for their creation).  Two more cases for
# sandproof-ref and bwrap: "all-present" (every protected name exists,
# nothing to watch) and "bare" (a plain directory, every name absent).
# hyperfine runs the commands one after another, not in pairs: compare
# ratios from one invocation only, and see the spread.
set -eu
build=${1:-build}
ref=$(cd "$build" && pwd)/sandproof-ref
out=${SANDPROOF_BENCH_OUT:-bench/launch-results.md}
peers=${SANDPROOF_PEERS:-/opt/sandproof-peers}
command -v hyperfine >/dev/null || { echo "bench/launch.sh: hyperfine not installed" >&2; exit 2; }
top=$(mktemp -d /var/tmp/sp-bench.XXXXXX)   # not /tmp: sandboxes replace /tmp
trap 'rm -rf "$top"' EXIT
trap 'exit 130' INT TERM
ws=$top/repo all=$top/all bare=$top/bare
mkdir -p "$ws" "$all" "$bare"
for d in "$ws" "$all"; do
	git -C "$d" init -q && printf 'x\n' >"$d/file" && git -C "$d" add file &&
		git -C "$d" -c user.email=b@x -c user.name=b commit -qm init
done
mkdir -p "$all/.git/hooks" "$all/.agents" "$all/.zero"
bw() { echo "bwrap --ro-bind / / --tmpfs /tmp --bind $1 $1 --dev /dev --proc /proc --unshare-all --die-with-parent --new-session --chdir $1"; }
set -- -n "true" "/bin/true"
for cmd in "/bin/true" "git status --short"; do
	tag=$(echo "$cmd" | cut -d' ' -f1-2)
	set -- "$@" -n "sandproof-ref: $tag" "$ref exec --write $ws --cwd $ws -- $cmd"
	if command -v bwrap >/dev/null; then
		set -- "$@" -n "bwrap: $tag" "$(bw "$ws") $cmd"
	fi
	if command -v firejail >/dev/null && [ "$(id -u)" -eq 0 ]; then
		set -- "$@" -n "firejail: $tag" "firejail --noprofile --quiet --net=none --ipc-namespace --caps.drop=all --nonewprivs --nogroups --seccomp.block-secondary --restrict-namespaces --protocol=unix,inet,inet6,netlink --private-dev --keep-var-tmp --read-only=/ --private-tmp --whitelist=$ws --read-write=$ws --private-cwd=$ws -- $cmd"
	fi
	if [ -x "$peers/bin/codex" ]; then
		home=$top/codex-home
		mkdir -p "$home"
		cat >"$home/config.toml" <<TOML
[shell_environment_policy]
inherit = "none"
[shell_environment_policy.set]
"PATH" = "/usr/bin:/bin"
[permissions.sandproof.filesystem]
":root" = "read"
"/tmp" = "none"
"$ws" = "write"
[permissions.sandproof.network]
enabled = false
TOML
		set -- "$@" -n "codex: $tag" "env HOME=$home CODEX_HOME=$home $peers/bin/codex sandbox -P sandproof -C $ws -- $cmd"
	fi
	if [ -x "$peers/bin/srt" ]; then
		cat >"$top/srt.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["/tmp"], "allowWrite": [{"path": "$ws", "literal": true}], "denyWrite": []}}
JSON
		set -- "$@" -n "srt: $tag" "sh -c 'cd $ws && exec $peers/bin/srt --settings $top/srt.json -- $cmd'"
	fi
done
set -- "$@" -n "sandproof-ref (all-present): /bin/true" "$ref exec --write $all --cwd $all -- /bin/true"
command -v bwrap >/dev/null && set -- "$@" -n "bwrap (all-present): /bin/true" "$(bw "$all") /bin/true"
set -- "$@" -n "sandproof-ref (bare): /bin/true" "$ref exec --write $bare --cwd $bare -- /bin/true"
command -v bwrap >/dev/null && set -- "$@" -n "bwrap (bare): /bin/true" "$(bw "$bare") /bin/true"
hyperfine -N --warmup 5 --runs "${RUNS:-100}" --export-markdown "$out" --export-json "$top/r.json" "$@"
# medians, spread (min-max) and ratios against sandproof-ref for the same command
python3 - "$top/r.json" >>"$out" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: r["median"] * 1000 for r in rs}
print("\n| command | median [ms] | min-max [ms] | vs sandproof-ref | sandproof-ref / bwrap |\n|:---|---:|---:|---:|---:|")
for r in rs:
    name = r["command"]
    runner, tag = name.split(": ", 1) if ": " in name else (name, None)
    case = runner[runner.index(" "):] if " " in runner else ""
    base = med.get("sandproof-ref%s: %s" % (case, tag)) if tag else None
    ratio = "%.2fx" % (r["median"] * 1000 / base) if base else "-"
    bw = med.get("bwrap%s: %s" % (case, tag)) if tag and runner.startswith("sandproof-ref") else None
    vs = "%.2fx" % (r["median"] * 1000 / bw) if bw else "-"
    print("| `%s` | %.1f | %.1f-%.1f | %s | %s |" % (name, r["median"] * 1000, r["min"] * 1000, r["max"] * 1000, ratio, vs))
PY
# Paired: sandproof-ref and bwrap in turn (A B A B ...), the ratio taken pair
# by pair, so a machine whose speed drifts (other work on it) moves both.
# Wall time of each whole process, spawn to reap, from python's posix_spawn.
# Last row: the namespace floor against bwrap in the realistic workspace.
if command -v bwrap >/dev/null; then
	python3 - "${RUNS:-100}" "$ref" "$ws" "$all" "$bare" "$(bw "$ws")" "$(bw "$all")" "$(bw "$bare")" >>"$out" <<'PY'
import os, statistics, sys, time
runs, ref, ws, al, bare = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
bws = sys.argv[6:9]
null = os.open(os.devnull, os.O_RDWR)
def once(argv):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1)])
    _, st = os.waitpid(pid, 0)
    if st:
        sys.exit("%s: status %d" % (argv, st))
    return (time.perf_counter_ns() - t) / 1e6
print("\nPaired (A = sandproof-ref, B = bwrap, in turn, %d pairs after 5 warm-up pairs; /bin/true):\n" % runs)
print("| workspace | A median [ms] | B median [ms] | A/B median of pairs | A/B p10-p90 |\n|:---|---:|---:|---:|---:|")
# The floor: util-linux unshare into the namespaces both runners make (user,
# mount, pid, net, ipc), fork, exec; no mount, no loopback, no filter.  What
# either runner adds above it is its own work.
floor = ["/usr/bin/unshare", "-U", "-r", "-m", "-p", "-f", "-n", "-i", "/bin/true"]
cases = [("realistic (git init)", ws, bws[0]), ("all-present", al, bws[1]), ("bare", bare, bws[2])]
if os.path.exists(floor[0]):
    cases.append(("floor: unshare -Urmpfni /bin/true as A", None, bws[0]))
for name, d, b in cases:
    a_argv = [ref, "exec", "--write", d, "--cwd", d, "--", "/bin/true"] if d else floor
    b_argv = b.split() + ["/bin/true"]
    b_argv[0] = "/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else b_argv[0]
    for _ in range(5):
        once(a_argv); once(b_argv)
    A, B, R = [], [], []
    for _ in range(runs):
        a = once(a_argv); bb = once(b_argv)
        A.append(a); B.append(bb); R.append(a / bb)
    R.sort()
    print("| %s | %.1f | %.1f | %.2fx | %.2f-%.2f |" % (name, statistics.median(A), statistics.median(B),
          statistics.median(R), R[len(R) // 10], R[len(R) * 9 // 10]))
PY
fi
echo "results: $out"
