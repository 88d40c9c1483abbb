#!/bin/sh
# ci/deb.sh [BUILD] - the .deb end to end, as root (ci/test.sh runs it):
#   1. cpack makes BUILD/package/sandproof_<version>_<arch>.deb
#      (cmake/install.cmake); refused if sandproof is installed already or
#      any file of the package exists on the machine (nothing is clobbered);
#   2. dpkg -i installs it; its Depends name every package whose library
#      the installed programs load (ldd, dpkg -S);
#   3. from the installed paths (/usr/bin/sandproof; `env` says installed,
#      every data path under /usr), as root with the source and build trees
#      hidden (a mount namespace with a tmpfs over each), and as the
#      unprivileged user sandproof-test: `sandproof smoke`, then the
#      catalogue's fs area against ref; man finds sandproof(1);
#      then, as the unprivileged user outside every tree of ours, a runner
#      binary of the user's own (contract:PATH) gets a matrix row, a report,
#      a baseline, and a gate that passes it and fails it once broken;
#   4. dpkg -r removes it: dpkg says not installed, no file or directory
#      the package brought remains (directories that were there before
#      stay), and nothing named *sandproof* under /usr is left that was not
#      there before.
# A failure after the install still removes the package (EXIT trap).
# Exit 0 all held, 1 a check failed, 77 not root (dpkg -i needs it).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
build=$(cd "$build" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "ci/deb.sh: dpkg -i needs root: not run" >&2; exit 77; }
. "$here/ci/unpriv.sh"
. "$here/harness/tests/sc_lib.sh"
work=$(mktemp -d /var/tmp/sandproof-deb.XXXXXX)
installed=0
cleanup() {
	[ "$installed" -eq 0 ] || dpkg_retry -r sandproof >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# dpkg_retry ARGS: dpkg, waiting (up to 2 minutes) while another process
# holds its lock (an apt-get of a neighbour), never longer.
dpkg_retry() {
	i=0
	while ! dpkg "$@" >"$work/dpkg.log" 2>&1; do
		i=$((i + 1))
		if [ $i -ge 60 ] || ! grep -q "lock" "$work/dpkg.log"; then
			cat "$work/dpkg.log" >&2
			return 1
		fi
		sleep 2
	done
}

# ---- 1. the package ---------------------------------------------------------
rm -rf "$build/package"
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$build/package" >"$work/cpack.log" 2>&1 ||
	{ cat "$work/cpack.log"; exit 1; }
deb=$(ls "$build"/package/sandproof_*.deb)
ok "cpack made $(basename "$deb")"
if dpkg-query -W -f='${db:Status-Status}' sandproof 2>/dev/null | grep -qv '^not-installed$'; then
	echo "ci/deb.sh: sandproof is installed on this machine already (dpkg -s sandproof): not touched" >&2
	exit 1
fi
dpkg-deb -c "$deb" | awk '{ print substr($1, 1, 1), $6 }' | sed 's| \./| /|; s|/$||' >"$work/contents"
awk '$1 != "d" { print $2 }' "$work/contents" >"$work/files"
awk '$1 == "d" && $2 != "/" && $2 != "" { print $2 }' "$work/contents" >"$work/dirs"
while read -r f; do
	[ ! -e "$f" ] || { echo "ci/deb.sh: $f exists already: not clobbered" >&2; exit 1; }
done <"$work/files"
while read -r d; do
	[ ! -d "$d" ] || echo "$d"
done <"$work/dirs" >"$work/dirs.before"
find /usr -path '*sandproof*' 2>/dev/null | sort >"$work/usr.before"

# ---- 2. dpkg -i, its dependencies ---------------------------------------------
dpkg_retry -i "$deb" || { notok "dpkg -i $(basename "$deb")"; tap_end; exit 1; }
installed=1
ok "dpkg -i installed it ($(wc -l <"$work/files") files)"
depends=$(dpkg-query -W -f='${Depends}' sandproof | tr -d ' ' | tr ',' '\n' | sed 's/(.*//')
for exe in /usr/bin/sandproof /usr/bin/sandproof-ref; do
	ldd "$exe" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | while read -r lib; do
		owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | sed 's/[:,].*//' | head -n 1)
		[ -n "$owner" ] || owner=$(dpkg -S "$lib" 2>/dev/null | sed 's/[:,].*//' | head -n 1)
		printf '%s\n' "$depends" | grep -qx "$owner" || echo "$exe needs $lib of '$owner'"
	done
done >"$work/undeclared"
[ ! -s "$work/undeclared" ] && ok "Depends ($(printf '%s' "$depends" | tr '\n' ' ')) covers every library loaded" ||
	notok "undeclared dependencies: $(tr '\n' ';' <"$work/undeclared")"
[ "$(man -w sandproof 2>/dev/null)" = /usr/share/man/man1/sandproof.1 ] &&
	ok "man -w sandproof finds the installed page" || notok "man -w sandproof: $(man -w sandproof 2>&1)"

# ---- 3. from the installed paths, as root and unprivileged ------------------
cd /
sandproof env >"$work/env" 2>&1
paths=$(sed -n 's/^[[:space:]]*"path":[[:space:]]*"\(.*\)",*$/\1/p' "$work/env")
[ "$(printf '%s\n' "$paths" | grep -c '^/usr/')" -eq 4 ] &&
	grep -q '"layout":[[:space:]]*"installed"' "$work/env" &&
	ok "sandproof env: installed, its 4 data paths under /usr" ||
	notok "sandproof env: $(printf '%s' "$paths" | tr '\n' ' ')"
# what root runs sees neither tree: an installed copy that reached for
# either would fail here
hide="mount -t tmpfs none '$here'"
case $build in "$here"/*) ;; *) hide="$hide && mount -t tmpfs none '$build'" ;; esac
mkdir "$work/root"
as_root() { # TEXT CMD: CMD with the trees hidden
	what=$1
	shift
	if unshare -m sh -c "$hide && exec \"\$@\"" sh "$@" >"$work/root.log" 2>&1; then
		ok "as root, trees hidden: $what"
	else
		notok "as root, trees hidden: $what: $(tail -5 "$work/root.log" | tr '\n' ' ')"
	fi
}
as_root "sandproof smoke" sandproof smoke --out "$work/root/smoke"
as_root "sandproof run --runner ref --filter 'fs.*'" \
	sandproof run --runner ref --filter 'fs.*' --out "$work/root/fs"
unpriv_user_ensure
mkdir "$work/user"
chown "$unpriv_user" "$work/user"
chmod 755 "$work"
as_user() { # TEXT SCRIPT
	if runuser -u "$unpriv_user" -- env -i PATH=/usr/bin:/bin HOME="$work/user" \
		sh -c "cd '$work/user' && $2" >"$work/user.log" 2>&1; then
		ok "as $unpriv_user: $1"
	else
		notok "as $unpriv_user: $1: $(tail -5 "$work/user.log" | tr '\n' ' ')"
	fi
}
as_user "sandproof smoke" "sandproof smoke --out smoke"
as_user "sandproof run --runner ref --filter 'fs.*'" "sandproof run --runner ref --filter 'fs.*' --out fs"
as_user "the run recorded the installed data" \
	"sandproof env | grep -q '\"layout\":[[:space:]]*\"installed\"' && test -s fs/linux.sqlite"

# ---- 3b. a user with only a runner binary: a row, a report, a CI gate ----------
# Outside every tree of ours, as the unprivileged user: "mybox" is a runner
# program of the user's own that speaks the contract (here it hands the
# request to the installed sandproof-ref; any program may stand there), and
# "mybox-broken" the same runner after a change that lost the filesystem
# policy.  Only the installed sandproof is used: no Lua, no adapter, no
# checkout.
printf '%s\n' '#!/bin/sh' '# a contract runner: the request on stdin, the outcome on stdout' \
	'exec /usr/bin/sandproof-ref "$@"' >"$work/user/mybox"
printf '%s\n' '#!/bin/sh' '# the same runner, broken: every request run with no filesystem policy' \
	'[ "${1:-}" = run ] || exec /usr/bin/sandproof-ref "$@"' \
	'python3 -c "import json, sys' \
	'r = json.load(sys.stdin)' \
	'r.setdefault(\"profile\", {})[\"filesystem\"] = {\"kind\": \"unrestricted\"}' \
	'print(json.dumps(r))" | /usr/bin/sandproof-ref run --request -' >"$work/user/mybox-broken"
chmod 755 "$work/user/mybox" "$work/user/mybox-broken"
chown "$unpriv_user" "$work/user/mybox" "$work/user/mybox-broken"
# count ID WHERE: results of runner mybox in database ID matching WHERE
count() { echo "sqlite3 $1/linux.sqlite \"select count(*) from result where runner = 'mybox' and $2\""; }
as_user "a matrix row for the user's runner (mybox=contract:./mybox)" \
	"sandproof run --runner mybox=contract:./mybox --filter 'fs.outside_*' --out row &&
	 test \"\$($(count row "verdict = 'pass'"))\" -ge 2"
as_user "its report and baseline" \
	"sandproof report row/linux.sqlite --format html -o row.html && grep -q mybox row.html &&
	 sandproof baseline row/linux.sqlite -o baseline.json"
as_user "the gate passes the runner as it is" \
	"sandproof diff --runner mybox --baseline baseline.json row/linux.sqlite"
as_user "the gate fails the broken runner, its escape recorded" \
	"! sandproof run --runner mybox=contract:./mybox-broken --filter 'fs.outside_*' --out broken &&
	 ! sandproof diff --runner mybox --baseline baseline.json broken/linux.sqlite &&
	 test \"\$($(count broken "impact = 'escape'"))\" -ge 1"

# ---- 4. dpkg -r leaves nothing behind ----------------------------------------
dpkg_retry -r sandproof && installed=0 && ok "dpkg -r sandproof" || notok "dpkg -r sandproof"
status=$(dpkg-query -W -f='${db:Status-Status}' sandproof 2>/dev/null || echo not-installed)
[ "$status" = not-installed ] && ok "dpkg shows sandproof not installed" ||
	notok "dpkg shows sandproof as '$status'"
left=$(while read -r f; do [ ! -e "$f" ] || echo "$f"; done <"$work/files")
while read -r d; do
	[ ! -d "$d" ] || grep -qx "$d" "$work/dirs.before" || left="$left $d"
done <"$work/dirs"
[ -z "$left" ] && ok "no file or directory of the package remains" || notok "left behind: $left"
find /usr -path '*sandproof*' 2>/dev/null | sort >"$work/usr.after"
cmp -s "$work/usr.before" "$work/usr.after" && ok "nothing named *sandproof* is left under /usr" ||
	notok "under /usr: $(comm -13 "$work/usr.before" "$work/usr.after" | tr '\n' ' ')"
tap_end
