#!/bin/sh
# tests/test_find_lua54.sh - ci/find-lua54.cmake finds Lua 5.4 under each
# name platforms give it and refuses another Lua (issue 32 §7).  Each case
# configures a two-line project against a fake pkg-config directory
# (PKG_CONFIG_LIBDIR: the system's .pc files hidden):
#   - only lua.pc, 5.4.6 (MSYS2's layout): found, module "lua";
#   - only lua.pc, 5.3.6: a configure error naming 5.3.6;
#   - lua5.4.pc and a 5.3 lua.pc (Debian's names, another Lua beside):
#     lua5.4 chosen;
#   - only lua-5.4.pc: found;
#   - none: a configure error.
# Needs cmake and pkg-config (77 without them).  TAP.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v cmake >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
	echo "1..0 # SKIP cmake or pkg-config missing"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sp-findlua.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

pc() { # dir name version
	mkdir -p "$1/lib"
	: >"$1/lib/liblua.a"
	cat >"$1/$2.pc" <<PC
prefix=$1
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: Lua
Description: a fake for the test
Version: $3
Libs: -L\${libdir} -llua
Cflags: -I\${includedir}
PC
}

mkdir -p "$tmp/proj"
cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(findlua C)
find_package(PkgConfig REQUIRED)
include($src/ci/find-lua54.cmake)
CM

# case NAME EXPECT(ok|fail) GREP -- pc specs (name:version ...)
case_() {
	name=$1 want=$2 pattern=$3
	shift 3
	d="$tmp/$n.pc"
	mkdir -p "$d"
	for spec in "$@"; do
		pc "$d" "${spec%%:*}" "${spec#*:}"
	done
	n=$((n + 1))
	rm -rf "$tmp/b"
	if PKG_CONFIG_LIBDIR="$d" PKG_CONFIG_PATH="" cmake -S "$tmp/proj" -B "$tmp/b" >"$tmp/log" 2>&1; then
		got=ok
	else
		got=fail
	fi
	if [ "$got" = "$want" ] && grep -q "$pattern" "$tmp/log"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (configure: $got, wanted $want and /$pattern/)"
		sed 's/^/# /' "$tmp/log" | tail -8
		fail=$((fail + 1))
	fi
}

case_ "only lua.pc 5.4.6 (MSYS2): found" ok "Lua 5.4.6 from pkg-config module lua\$" lua:5.4.6
case_ "only lua.pc 5.3.6: refused, naming the version" fail "is Lua 5.3.6, not 5.4" lua:5.3.6
case_ "lua5.4.pc beside a 5.3 lua.pc (Debian): lua5.4 chosen" ok \
	"Lua 5.4.4 from pkg-config module lua5.4" lua5.4:5.4.4 lua:5.3.6
case_ "only lua-5.4.pc: found" ok "Lua 5.4.6 from pkg-config module lua-5.4" lua-5.4:5.4.6
case_ "no Lua at all: refused" fail "Lua 5.4 not found by pkg-config"
echo "1..$n"
[ "$fail" -eq 0 ]
