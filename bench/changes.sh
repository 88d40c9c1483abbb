#!/bin/sh
# bench/changes.sh - what the change report (OUT-8) costs a run, paired
# (whole-process wall time with farm-bench; never a test).
#
#   sh bench/changes.sh [BUILD_DIR] [RUNS]     (default ./build, 20 runs;
#                                               as root: root, then the
#                                               unprivileged user sandproof-test)
#
# `sandproof-ref exec --json --write WS --cwd WS -- /bin/true` in a workspace
# of 100 000 files in 1 000 directories, paired (A B A B ...) against the
# same command in an empty workspace, so the ratio is what the change report
# costs for the size of the workspace: with the mechanism the runner picks
# (the events), then with the walk forced (SANDPROOF_REF_CHANGES=walk), the
# old cost, for reference; then a command that writes 1 000 files (d000 to
# d009) in the big workspace against the same command in a workspace of just
# those 1 000 files (the same changes, reported each run).
# As root the same again as sandproof-test (unprivileged: another
# mechanism, inode marks and a listing).  The machine's load is printed
# before each pair.  Workspaces live in /var/tmp (sandboxes replace /tmp)
# and are removed at the end.
set -eu
build=${1:-build}
runs=${2:-20}
ref=$(cd "$build" && pwd)/sandproof-ref
command -v farm-bench >/dev/null || { echo "bench/changes.sh: farm-bench not installed" >&2; exit 2; }
top=$(mktemp -d /var/tmp/sp-changes.XXXXXX)
trap 'rm -rf "$top"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$top"

# mkws DIR N: N * 100 empty files in N directories
mkws() {
	python3 -c "
import os, sys
for d in range(int(sys.argv[2])):
    p = os.path.join(sys.argv[1], 'd%03d' % d)
    os.makedirs(p)
    for f in range(100):
        open(os.path.join(p, 'f%03d' % f), 'w').close()" "$1" "$2"
}

# pair AS LABEL ENV COMMAND [SMALL]: farm-bench, the big workspace (A)
# against the empty one (B; SMALL: the one of 1 000 files)
pair() {
	as=$1 label=$2 env=$3 cmd=$4
	big=$top/$as-big empty=$top/$as-${5:-empty}
	echo "## $label ($as), load: $(cut -d' ' -f1-3 /proc/loadavg)"
	# each side a script, so both are started the same way (sh FILE)
	printf '%s\n' "cd $big && exec env $env $ref exec --json --write $big --cwd $big -- sh -c '$cmd' >/dev/null" >"$top/a.sh"
	printf '%s\n' "cd $empty && exec env $env $ref exec --json --write $empty --cwd $empty -- sh -c '$cmd' >/dev/null" >"$top/b.sh"
	if [ "$as" = root ]; then
		farm-bench -n "$runs" --timeout 900 --vs "sh $top/b.sh" -- sh "$top/a.sh" | grep -E 'wall|cpu'
	else
		runuser -u sandproof-test -- farm-bench -n "$runs" --timeout 900 --vs "sh $top/b.sh" -- sh "$top/a.sh" |
			grep -E 'wall|cpu'
	fi
}

users=root
if [ "$(id -u)" -eq 0 ] && id sandproof-test >/dev/null 2>&1; then
	users="root sandproof-test"
fi
for as in $users; do
	mkdir -p "$top/$as-big" "$top/$as-empty" "$top/$as-small"
	mkws "$top/$as-big" 1000
	mkws "$top/$as-small" 10
	[ "$as" = root ] || chown -R "$as" "$top/$as-big" "$top/$as-empty" "$top/$as-small"
	pair "$as" "true, events" "X=1" "/bin/true"
	pair "$as" "true, the walk forced" "SANDPROOF_REF_CHANGES=walk" "/bin/true"
	pair "$as" "1 000 files written, events (B: a workspace of those 1 000)" "X=1" \
		'for f in d00?/f*; do echo x >>$f; done' small
done
