#!/bin/sh
# test_packaging.sh SRC - what can be checked here of the packages built
# on the other OSes (makepkg and Homebrew are not on this machine; the
# macOS and Windows CI legs build through them: ci/homebrew.sh,
# ci/msys2.sh):
#   - the Homebrew formula parses (ruby -c); loaded with a stand-in for
#     Homebrew's DSL (formula_stub.rb) it keeps the two placeholders
#     ci/homebrew.sh fills, depends on lua, sqlite, cjson (cmake and
#     pkgconf to build), and installs with cmake configure, build and
#     --install into std_cmake_args' prefix;
#   - the PKGBUILD parses (bash -n); its pkgver is the project's version;
#     sourced with makepkg's variables and a recording cmake, build()
#     configures this source tree for the windows platform into
#     MINGW_PREFIX and package() installs with DESTDIR=$pkgdir; its
#     depends name lua, sqlite3 and cjson.
# Exit 0 all held, 1 otherwise.
set -u
src=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$src/harness/tests/sc_lib.sh"
sc_tmp packaging || exit 1
version=$(sed -n 's/^project(sandproof VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
rb=$src/packaging/homebrew/sandproof.rb
pk=$src/packaging/msys2/PKGBUILD

# ---- Homebrew --------------------------------------------------------------
if ruby -c "$rb" >"$tmp/rb.c" 2>&1; then ok "ruby -c $rb"; else notok "ruby -c: $(cat "$tmp/rb.c")"; fi
ruby "$here/formula_stub.rb" "$rb" >"$tmp/rb" 2>&1 || notok "the formula does not load: $(head -3 "$tmp/rb")"
grep -qx "url @TARBALL_URL@" "$tmp/rb" && grep -qx "sha256 @TARBALL_SHA256@" "$tmp/rb" &&
	grep -q "@TARBALL_URL@" "$src/ci/homebrew.sh" && grep -q "@TARBALL_SHA256@" "$src/ci/homebrew.sh" &&
	ok "formula: the placeholders ci/homebrew.sh fills" || notok "formula and ci/homebrew.sh disagree on the placeholders"
deps=$(sed -n 's/^dep //p' "$tmp/rb" | sort | tr '\n' ',')
[ "$deps" = "cjson,cmake build,lua,pkgconf build,sqlite," ] && ok "formula: depends on $deps" ||
	notok "formula depends on '$deps'"
sed -n 's/^system //p' "$tmp/rb" >"$tmp/rb.sys"
sed -n 1p "$tmp/rb.sys" | grep -q "^cmake -S \. -B build .*-DCMAKE_INSTALL_PREFIX=/prefix" &&
	[ "$(sed -n 2p "$tmp/rb.sys")" = "cmake --build build" ] &&
	[ "$(sed -n 3p "$tmp/rb.sys")" = "cmake --install build" ] && [ "$(wc -l <"$tmp/rb.sys")" -eq 3 ] &&
	ok "formula: cmake configure (std_cmake_args), build, --install" ||
	notok "formula install runs: $(tr '\n' ';' <"$tmp/rb.sys")"
grep -qx test "$tmp/rb" && ok "formula: has a test block" || notok "formula has no test block"

# ---- MSYS2 -------------------------------------------------------------------
if bash -n "$pk" 2>"$tmp/pk.n"; then ok "bash -n $pk"; else notok "bash -n: $(cat "$tmp/pk.n")"; fi
bash -c '
	set -eu
	MINGW_PACKAGE_PREFIX=mingw-w64-x86_64 MINGW_PREFIX=/mingw64 MSYSTEM=MINGW64
	startdir=$(dirname "$1") srcdir=$2/src pkgdir=$2/pkg calls=$2/calls
	mkdir -p "$srcdir" "$pkgdir"
	cmake() { echo "cmake $* DESTDIR=${DESTDIR:-}" >>"$calls"; }
	. "$1"
	cd "$srcdir"
	build
	package
	echo "pkgver=$pkgver"
	echo "pkgname=${pkgname[*]}"
	echo "depends=${depends[*]}"
' sh "$pk" "$tmp" >"$tmp/pk" 2>&1 || notok "the PKGBUILD's functions fail: $(head -3 "$tmp/pk")"
grep -qx "pkgver=$version" "$tmp/pk" && ok "PKGBUILD: pkgver is the project's $version" ||
	notok "PKGBUILD: $(grep pkgver "$tmp/pk"), the project is $version"
grep -qx "pkgname=mingw-w64-x86_64-sandproof" "$tmp/pk" &&
	grep -qx "depends=mingw-w64-x86_64-lua mingw-w64-x86_64-sqlite3 mingw-w64-x86_64-cjson" "$tmp/pk" &&
	ok "PKGBUILD: mingw-w64-x86_64-sandproof, depends on lua, sqlite3, cjson" ||
	notok "PKGBUILD names: $(grep -E 'pkgname|depends' "$tmp/pk" | tr '\n' ';')"
first=$(sed -n 1p "$tmp/calls" 2>/dev/null)
srcarg=$(printf '%s\n' "$first" | sed -n 's/^cmake -S \([^ ]*\) .*/\1/p')
[ -n "$srcarg" ] && [ "$(cd "$srcarg" && pwd)" = "$(cd "$src" && pwd)" ] &&
	printf '%s\n' "$first" | grep -q -- "-DSANDPROOF_PLATFORM=windows" &&
	printf '%s\n' "$first" | grep -q -- "-DCMAKE_INSTALL_PREFIX=/mingw64" &&
	ok "PKGBUILD build(): configures this source tree, platform windows, prefix /mingw64" ||
	notok "PKGBUILD build() ran: $first"
grep -qx "cmake --install build-MINGW64 DESTDIR=$tmp/pkg" "$tmp/calls" &&
	ok "PKGBUILD package(): cmake --install with DESTDIR=\$pkgdir" ||
	notok "PKGBUILD package() ran: $(tail -1 "$tmp/calls")"
tap_end
