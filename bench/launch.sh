#!/bin/sh
# bench/launch.sh - launch cost of every runner, in one hyperfine run
# (whole-process wall time; never a test).
#
#   sh bench/launch.sh [BUILD_DIR]     (default ./build; needs hyperfine;
#                                       peers from ci/peers.sh when present)
#
# Policy for every runner: the whole filesystem read-only, one writable
# workspace (a small git repository), network deny, private /tmp.  Each peer
# gets the flags its adapter passes (docs/peers/*.md).  Two commands:
# /bin/true, and `git status` in the repository.  The workspace has every
# protected name present (nothing for sandproof-ref to watch); "bare" adds
# sandproof-ref on a workspace without them (it then watches with inotify).
set -eu
build=${1:-build}
ref=$(cd "$build" && pwd)/sandproof-ref
out=${SANDPROOF_BENCH_OUT:-bench/launch-results.md}
peers=${SANDPROOF_PEERS:-/opt/sandproof-peers}
command -v hyperfine >/dev/null || { echo "bench/launch.sh: hyperfine not installed" >&2; exit 2; }
top=$(mktemp -d /var/tmp/sp-bench.XXXXXX)   # not /tmp: sandboxes replace /tmp
trap 'rm -rf "$top"' EXIT
ws=$top/repo bare=$top/bare
mkdir -p "$ws" "$bare"
git -C "$ws" init -q && printf 'x\n' >"$ws/file" && git -C "$ws" add file &&
	git -C "$ws" -c user.email=b@x -c user.name=b commit -qm init
mkdir -p "$ws/.git/hooks" "$ws/.agents" "$ws/.zero"
set -- -n "true" "/bin/true"
for cmd in "/bin/true" "git status --short"; do
	tag=$(echo "$cmd" | cut -d' ' -f1-2)
	set -- "$@" -n "sandproof-ref: $tag" "$ref exec --write $ws --cwd $ws -- $cmd"
	if command -v bwrap >/dev/null; then
		set -- "$@" -n "bwrap: $tag" "bwrap --ro-bind / / --tmpfs /tmp --bind $ws $ws --dev /dev --proc /proc --unshare-all --die-with-parent --new-session --chdir $ws $cmd"
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
set -- "$@" -n "sandproof-ref (bare): /bin/true" "$ref exec --write $bare --cwd $bare -- /bin/true"
hyperfine -N --warmup 5 --runs "${RUNS:-100}" --export-markdown "$out" --export-json "$top/r.json" "$@"
# medians, spread (min-max) and ratios against sandproof-ref for the same command
python3 - "$top/r.json" >>"$out" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: r["median"] * 1000 for r in rs}
print("\n| command | median [ms] | min-max [ms] | vs sandproof-ref |\n|:---|---:|---:|---:|")
for r in rs:
    name = r["command"]
    tag = name.split(": ", 1)[1] if ": " in name else None
    base = med.get("sandproof-ref: " + tag) if tag else None
    ratio = "%.2fx" % (r["median"] * 1000 / base) if base else "-"
    print("| `%s` | %.1f | %.1f-%.1f | %s |" % (name, r["median"] * 1000, r["min"] * 1000, r["max"] * 1000, ratio))
PY
echo "results: $out"
