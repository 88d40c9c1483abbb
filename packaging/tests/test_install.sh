#!/bin/sh
# test_install.sh BUILD SRC - `cmake --install BUILD` into a temp prefix
# (cmake/install.cmake, harness/datadir.h):
#   - the layout: bin/ holds the two programs and nothing else, the probe
#     in libexec/sandproof/, the Lua libraries, adapters, every scenario of
#     SRC, the revision and both man pages under share/; no build-tree
#     marker is installed;
#   - the installed sandproof finds all of it in its own prefix (`env`:
#     layout installed, every path under the prefix, none in BUILD or
#     SRC), lists the same catalogue as the build tree, records the
#     installed revision, asks the installed sandproof-ref its version, and
#     runs a scenario from there;
#   - the prefix moved elsewhere still holds (paths are relative);
#   - each environment override wins and `env` says so;
#   - a lone copy of the program (no build tree, no prefix) refuses `list`
#     and `run` (exit 2, naming what is missing and the variable to set),
#     `env` says "unknown" (exit 2), and the variables make it work.
# Exit 0 all held, 1 otherwise.
set -u
build=$1 src=$2
. "$src/harness/tests/sc_lib.sh"
sc_tmp install || exit 1
p=$tmp/prefix

if cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1; then
	ok "cmake --install into $p"
else
	notok "cmake --install failed: $(tail -3 "$tmp/install.log")"
	tap_end
	exit 1
fi

# ---- the layout -------------------------------------------------------------
for f in bin/sandproof bin/sandproof-ref libexec/sandproof/sandproof-probe; do
	[ -x "$p/$f" ] || notok "$f is not installed executable"
done
bins=$(ls "$p/bin" | tr '\n' ' ')
[ "$bins" = "sandproof sandproof-ref " ] && ok "bin/ holds the two programs, nothing else" ||
	notok "bin/ holds: $bins"
for f in lua/sandproof/engine.lua lua/sandproof/context.lua runners/ref.lua runners/none.lua \
	revision; do
	[ -f "$p/share/sandproof/$f" ] || notok "share/sandproof/$f is not installed"
done
for m in sandproof.1 sandproof-ref.1; do
	[ -s "$p/share/man/man1/$m" ] || notok "share/man/man1/$m is not installed"
done
want=$(cd "$src/scenarios" && find . -name '*.lua' | sort)
got=$(cd "$p/share/sandproof/scenarios" && find . -name '*.lua' | sort)
[ -n "$want" ] && [ "$want" = "$got" ] &&
	ok "share/sandproof/scenarios holds every scenario of the source tree ($(echo "$want" | wc -l))" ||
	notok "the installed scenarios differ from the source tree's"
[ -z "$(find "$p" -name sandproof-build-tree)" ] && ok "no build-tree marker is installed" ||
	notok "a build-tree marker was installed"

# ---- the installed copy finds its data in its prefix -----------------------
# env_check LOG PREFIX: every "path" of env's "data" under PREFIX, none in
# the build or source tree, layout installed.
env_check() {
	paths=$(sed -n 's/^[[:space:]]*"path":[[:space:]]*"\(.*\)",*$/\1/p' "$1")
	bad=$(printf '%s\n' "$paths" | grep -v "^$2/" || true)
	if [ "$(printf '%s\n' "$paths" | grep -c .)" -eq 4 ] && [ -z "$bad" ] &&
		! grep -qF "\"$build/" "$1" && ! grep -qF "\"$src/" "$1" &&
		grep -q '"layout":[[:space:]]*"installed"' "$1"; then
		ok "$3: env says installed, its 4 data paths under $2, nothing from the build tree"
	else
		notok "$3: env's data is not all under $2: $(sed -n '/"data"/,/^	}/p' "$1" | tr -d '\n\t' | head -c 600)"
	fi
}
"$p/bin/sandproof" env >"$tmp/env" 2>"$tmp/env.err"; rc=$?
[ $rc -eq 0 ] || notok "installed env exited $rc: $(cat "$tmp/env.err")"
env_check "$tmp/env" "$p" "installed"
rev=$(cat "$p/share/sandproof/revision")
grep -q "\"git_revision\":[[:space:]]*\"$rev\"" "$tmp/env" &&
	ok "the installed copy records the revision it was built from ('$rev')" ||
	notok "git_revision is not the installed revision '$rev': $(grep git_revision "$tmp/env")"
refv=$("$p/bin/sandproof-ref" --version)
grep -q "\"ref\":[[:space:]]*\"$refv\"" "$tmp/env" &&
	ok "env asks the installed sandproof-ref ($refv)" || notok "env's ref version is not '$refv'"
"$build/sandproof" list | cut -f1 >"$tmp/list.build"
"$p/bin/sandproof" list | cut -f1 >"$tmp/list.inst"
[ -s "$tmp/list.inst" ] && cmp -s "$tmp/list.build" "$tmp/list.inst" &&
	ok "the installed copy lists the build tree's catalogue ($(wc -l <"$tmp/list.inst") scenarios)" ||
	notok "the installed list differs from the build tree's"
"$p/bin/sandproof" run --runner none --filter proc.exit_code_exact --out "$tmp/out" \
	>"$tmp/run.log" 2>&1; rc=$?
[ $rc -eq 0 ] && ls "$tmp/out/"*.sqlite >/dev/null 2>&1 &&
	ok "the installed copy runs a scenario and records it (exit 0)" ||
	notok "an installed run exited $rc: $(tail -3 "$tmp/run.log")"

# ---- a moved prefix ---------------------------------------------------------
mv "$p" "$tmp/moved"
"$tmp/moved/bin/sandproof" env >"$tmp/env2" 2>&1
env_check "$tmp/env2" "$tmp/moved" "moved prefix"
[ "$("$tmp/moved/bin/sandproof" list | wc -l)" -eq "$(wc -l <"$tmp/list.build")" ] &&
	ok "the moved prefix lists the catalogue" || notok "the moved prefix does not list the catalogue"
p=$tmp/moved

# ---- environment overrides --------------------------------------------------
mkdir -p "$tmp/sc/fs"
sc_write "$tmp/sc" only_one FS-1 'return "ok"'
SANDPROOF_SCENARIOS=$tmp/sc "$p/bin/sandproof" env >"$tmp/env3" 2>&1
SANDPROOF_SCENARIOS=$tmp/sc "$p/bin/sandproof" list >"$tmp/list3" 2>&1
grep -q '"from":[[:space:]]*"environment (SANDPROOF_SCENARIOS)"' "$tmp/env3" &&
	[ "$(cut -f1 "$tmp/list3")" = fs.only_one ] &&
	ok "SANDPROOF_SCENARIOS wins over the prefix, and env says so" ||
	notok "SANDPROOF_SCENARIOS override: $(cat "$tmp/list3" | head -3)"

# ---- a lone copy: no build tree, no prefix ----------------------------------
mkdir "$tmp/lone"
cp "$p/bin/sandproof" "$tmp/lone/"
"$tmp/lone/sandproof" list >"$tmp/lone.out" 2>"$tmp/lone.err"; rc=$?
[ $rc -eq 2 ] && grep -q "cannot find its scenarios: .*; set SANDPROOF_SCENARIOS" "$tmp/lone.err" &&
	grep -q "cannot find its harness: .*; set SANDPROOF_HARNESS_DIR" "$tmp/lone.err" &&
	[ ! -s "$tmp/lone.out" ] &&
	ok "a lone copy refuses list (exit 2), naming what is missing and what to set" ||
	notok "a lone copy's list: exit $rc, $(head -3 "$tmp/lone.err")"
"$tmp/lone/sandproof" run --runner none --out "$tmp/lone-out" >/dev/null 2>"$tmp/lone.err"; rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/lone-out" ] && ok "a lone copy refuses run (exit 2) and records nothing" ||
	notok "a lone copy's run: exit $rc"
"$tmp/lone/sandproof" env >"$tmp/lone.env" 2>"$tmp/lone.err"; rc=$?
[ $rc -eq 2 ] && grep -q '"layout":[[:space:]]*"unknown"' "$tmp/lone.env" &&
	grep -q '"from":[[:space:]]*"not found"' "$tmp/lone.env" &&
	ok "a lone copy's env says layout unknown, paths not found (exit 2)" ||
	notok "a lone copy's env: exit $rc, $(grep -A1 layout "$tmp/lone.env" | head -2)"
SANDPROOF_HARNESS_DIR=$p/share/sandproof SANDPROOF_SCENARIOS=$tmp/sc \
	SANDPROOF_REF=$p/bin/sandproof-ref SANDPROOF_PROBE=$p/libexec/sandproof/sandproof-probe \
	"$tmp/lone/sandproof" list >"$tmp/lone.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cut -f1 "$tmp/lone.out")" = fs.only_one ] &&
	ok "the four variables make a lone copy work" || notok "a lone copy with the variables: exit $rc"
tap_end
