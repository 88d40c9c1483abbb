#!/bin/sh
# ci/cross-windows.sh - the mingw-w64 cross-build of sandproof for Windows,
# on Debian 12 (platforms/windows/README.md).
#
#   sh ci/cross-windows.sh [BUILD_DIR]        (default: build-windows)
#
# 1. Checks the tools: x86_64-w64-mingw32-gcc, cmake, apt-get, dpkg-source,
#    tclsh (sqlite's amalgamation is generated natively) and, optionally,
#    wine (the ctest emulator).  As root, what is missing is installed with
#    apt-get; as anyone else, what is missing is named and the script
#    exits 2.
# 2. Fetches Lua 5.4, sqlite3 and cJSON as Debian SOURCE packages, through a
#    private sources list (deb-src for the suite of this machine; the
#    system's apt configuration is left alone), into BUILD_DIR/deps/src.
#    dpkg-source -x verifies each .dsc's checksums and signature state
#    before unpacking.  Nothing fetched is committed.
# 3. Builds them as static mingw libraries into BUILD_DIR/deps/{lib,include}
#    (cached: a second run reuses BUILD_DIR/deps/.done-NAME).
# 4. Configures and builds sandproof with ci/mingw-w64.cmake
#    (SANDPROOF_PLATFORM=windows) and, when WINE is present, runs
#    ctest -L portable under it (SANDPROOF_CROSS_TEST=0 skips that).
#    Wine results are plumbing only, never a Windows result.
# Exit: 0 built (and the Wine tests, when run, passed); 1 a step failed;
# 2 a tool is missing and we are not root.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/build-windows}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
deps=$out/deps
host=x86_64-w64-mingw32
jobs=$(nproc 2>/dev/null || echo 2)
say() { echo "cross-windows: $*"; }
die() { echo "cross-windows: $*" >&2; exit 1; }

# ---- 1. tools
need_tools() {
	missing=
	command -v $host-gcc >/dev/null 2>&1 || missing="$missing gcc-mingw-w64-x86-64"
	command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
	command -v dpkg-source >/dev/null 2>&1 || missing="$missing dpkg-dev"
	command -v tclsh >/dev/null 2>&1 || missing="$missing tcl"
	command -v make >/dev/null 2>&1 || missing="$missing make"
	command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
	command -v gpgv >/dev/null 2>&1 || missing="$missing gpgv"
	echo "$missing"
}
missing=$(need_tools)
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		say "installing:$missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >/dev/null ||
			{ apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y --no-install-recommends $missing >/dev/null; } ||
			die "apt-get install$missing failed"
	else
		echo "cross-windows: missing (install as root: apt-get install$missing)" >&2
		exit 2
	fi
fi

# ---- 2. the Debian source packages
# A private apt state: the suite this machine runs (VERSION_CODENAME), with
# the archive keyring apt uses for it, so Release files are verified as for
# any apt-get update; the system's sources and lists are never touched.
fetch_sources() {
	[ -f "$deps/src/.fetched" ] && return 0
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || codename=bookworm
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "no $keyring (Debian package debian-archive-keyring)"
	apt=$deps/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$deps/src"
	printf 'deb-src [signed-by=%s] http://deb.debian.org/debian %s main\n' \
		"$keyring" "$codename" >"$apt/sources.list"
	set -- -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User="$(id -un)"
	say "apt-get update (private list: deb-src $codename main)"
	apt-get "$@" update >"$apt/update.log" 2>&1 || { cat "$apt/update.log" >&2; die "apt-get update failed"; }
	say "apt-get source --download-only lua5.4 sqlite3 cjson"
	(cd "$deps/src" && apt-get "$@" source --download-only lua5.4 sqlite3 cjson) \
		>"$apt/source.log" 2>&1 || { cat "$apt/source.log" >&2; die "apt-get source failed"; }
	touch "$deps/src/.fetched"
}

# unpack NAME: dpkg-source -x of the one NAME_*.dsc (it checks every file's
# size and checksums against the .dsc; a mismatch is fatal) into src/NAME.
unpack() {
	dsc=$(ls "$deps/src/$1"_*.dsc 2>/dev/null | head -1)
	[ -n "$dsc" ] || die "no $1 source package in $deps/src"
	[ -d "$deps/src/$1" ] && return 0
	(cd "$deps/src" && dpkg-source -x "$(basename "$dsc")" "$1.tmp" >"$deps/src/$1.unpack.log" 2>&1) ||
		{ cat "$deps/src/$1.unpack.log" >&2; die "dpkg-source -x $(basename "$dsc") failed"; }
	mv "$deps/src/$1.tmp" "$deps/src/$1"
}

# ---- 3. static mingw libraries, cached per package
cc=$host-gcc
ar=$host-ar
cflags="-O2"
build_lua() {
	[ -f "$deps/.done-lua" ] && return 0
	unpack lua5.4
	s=$deps/src/lua5.4/src b=$deps/obj/lua
	rm -rf "$b" && mkdir -p "$b" "$deps/lib" "$deps/include"
	for f in "$s"/*.c; do
		case $(basename "$f") in lua.c|luac.c) continue ;; esac
		$cc $cflags -DLUA_COMPAT_5_3 -c "$f" -o "$b/$(basename "$f" .c).o" || die "lua: $f"
	done
	rm -f "$deps/lib/liblua.a" && $ar rcs "$deps/lib/liblua.a" "$b"/*.o
	cp "$s/lua.h" "$s/luaconf.h" "$s/lualib.h" "$s/lauxlib.h" "$deps/include/"
	touch "$deps/.done-lua"
}
# Debian's sqlite3 source is the full tree: the amalgamation (sqlite3.c) is
# generated natively (configure, tclsh), then compiled for Windows.
build_sqlite() {
	[ -f "$deps/.done-sqlite" ] && return 0
	unpack sqlite3
	b=$deps/obj/sqlite
	rm -rf "$b" && mkdir -p "$b" "$deps/lib" "$deps/include"
	(cd "$b" && "$deps/src/sqlite3/configure" --disable-tcl >configure.log 2>&1 &&
		make -j "$jobs" sqlite3.c >make.log 2>&1) ||
		die "sqlite: generating the amalgamation failed (see $b/*.log)"
	$cc $cflags -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -c "$b/sqlite3.c" \
		-o "$b/sqlite3.o" || die "sqlite: compiling sqlite3.c failed"
	rm -f "$deps/lib/libsqlite3.a" && $ar rcs "$deps/lib/libsqlite3.a" "$b/sqlite3.o"
	cp "$b/sqlite3.h" "$deps/include/"
	touch "$deps/.done-sqlite"
}
build_cjson() {
	[ -f "$deps/.done-cjson" ] && return 0
	unpack cjson
	b=$deps/obj/cjson
	rm -rf "$b" && mkdir -p "$b" "$deps/lib" "$deps/include/cjson"
	$cc $cflags -c "$deps/src/cjson/cJSON.c" -o "$b/cJSON.o" || die "cjson: compile failed"
	rm -f "$deps/lib/libcjson.a" && $ar rcs "$deps/lib/libcjson.a" "$b/cJSON.o"
	cp "$deps/src/cjson/cJSON.h" "$deps/include/cjson/"
	touch "$deps/.done-cjson"
}

# ---- 4. sandproof for Windows, and its tests under Wine when present
fetch_sources
build_cjson
build_lua
build_sqlite
say "deps ready in $deps (lua, sqlite3, cjson: static mingw libraries)"
cmake -S "$here" -B "$out" -DCMAKE_TOOLCHAIN_FILE="$here/ci/mingw-w64.cmake" \
	-DSANDPROOF_DEPS_PREFIX="$deps" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log" 2>&1 ||
	{ cat "$out/configure.log" >&2; die "cmake configure failed"; }
cmake --build "$out" -j "$jobs" >"$out/build.log" 2>&1 ||
	{ tail -40 "$out/build.log" >&2; die "build failed (see $out/build.log)"; }
say "built: $(cd "$out" && ls *.exe | tr '\n' ' ')"
[ -f "$out/sandproof-ref.exe" ] || die "no sandproof-ref.exe"

if [ "${SANDPROOF_CROSS_TEST:-1}" = 0 ]; then
	say "tests not run (SANDPROOF_CROSS_TEST=0)"
	exit 0
fi
wine=$(command -v wine || command -v wine64 || true)
if [ -z "$wine" ]; then
	say "skip: the Windows tests need wine (Debian package wine64); built only"
	exit 0
fi
# A private Wine prefix in the build directory, its wineserver ended after.
# Debian's wineserver makes its socket directory as $TMPDIR/wine-XXXXXX and
# leaves it: TMPDIR points into the build directory and is removed after.
export WINEPREFIX="$out/wineprefix" WINEDEBUG=-all TMPDIR="$out/winetmp"
mkdir -p "$TMPDIR"
say "ctest -L portable under Wine (plumbing only: never a Windows result)"
status=0
(cd "$out" && ctest --output-on-failure -j 1 -L portable) || status=1
wineserver -k 2>/dev/null || true
rm -rf "$TMPDIR"
exit $status
