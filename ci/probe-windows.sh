#!/bin/sh
# probe-windows.sh - cross-build the Windows probe, sandproof-probe.exe, with
# mingw-w64 (Debian: gcc-mingw-w64-x86-64), on its own: the shared command
# line and JSON output of harness/probe/ plus the Win32 operations of
# platforms/windows/probe/ (README.md there).  The same sources and flags
# belong in the CMake windows build (platforms/windows/probe/README.md,
# "Building"); this script is the reference for them.
#
#   sh ci/probe-windows.sh [--smoke] [OUTDIR]      (default: build-probe-windows)
#
# Leaves OUTDIR/sandproof-probe.exe.  With --smoke it then runs the Wine
# smoke, platforms/windows/tests/test_probe_wine.sh (TAP; a skip with its
# reason where Wine is absent), given build/sandproof-probe too when that
# exists (the operation names are compared).  Exit 0 built (and smoked),
# 1 the build or the smoke failed, 2 no compiler or a bad argument.
# CC chooses the compiler (default x86_64-w64-mingw32-gcc; CC=gcc in
# MSYS2's MINGW64 shell on Windows).
set -eu

cd "$(dirname "$0")/.."
smoke=""
if [ "${1:-}" = --smoke ]; then
	smoke=1
	shift
fi
case "${1:-}" in
-*) echo "probe-windows.sh: unknown option $1 (usage: probe-windows.sh [--smoke] [OUTDIR])" >&2
    exit 2 ;;
esac
out=${1:-build-probe-windows}
cc=${CC:-x86_64-w64-mingw32-gcc}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "probe-windows.sh: no $cc (apt-get install gcc-mingw-w64-x86-64)" >&2
	exit 2
fi

# The sources: the portable probe parts, the names lookups, UTF-8, and the
# Windows operations, tables, main and error table.
src="harness/probe/probe_args.c harness/probe/probe_out.c
platforms/common/names.c util/utf8.c
platforms/windows/probe/wprobe_main.c platforms/windows/probe/wprobe_fs.c
platforms/windows/probe/wprobe_meta.c platforms/windows/probe/wprobe_net.c
platforms/windows/probe/wprobe_proc.c platforms/windows/probe/wprobe_ui.c
platforms/windows/probe/wprobe_unsupported.c
platforms/windows/probe/wprobe_names_table.c platforms/windows/probe/winerr_table.c"

mkdir -p "$out"
# -municode: wmain, the arguments as UTF-16 (converted to UTF-8 by the
# probe); _WIN32_WINNT 0x0A00: Windows 10 APIs (inet_pton, the unprivileged
# symlink flag); -static: no libgcc or winpthread DLL beside the probe.
# shellcheck disable=SC2086
"$cc" -std=gnu11 -O2 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Werror \
	-D_WIN32_WINNT=0x0A00 -DWIN32_LEAN_AND_MEAN -municode \
	-Iharness/probe -Iplatforms/common -Iutil -Iplatforms/windows/probe \
	-o "$out/sandproof-probe.exe" $src -static -lws2_32 -luser32
echo "probe-windows.sh: built $out/sandproof-probe.exe"
[ -n "$smoke" ] || exit 0
if [ -x build/sandproof-probe ]; then
	bash platforms/windows/tests/test_probe_wine.sh "$out/sandproof-probe.exe" build/sandproof-probe
else
	bash platforms/windows/tests/test_probe_wine.sh "$out/sandproof-probe.exe"
fi
