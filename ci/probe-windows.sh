#!/bin/sh
# probe-windows.sh - cross-build the Windows probe, sandproof-probe.exe, with
# mingw-w64 (Debian: gcc-mingw-w64-x86-64), on its own: the shared command
# line and JSON output of harness/probe/ plus the Win32 operations of
# platforms/windows/probe/ (README.md there).  The same sources and flags
# belong in the CMake windows build (platforms/windows/probe/README.md,
# "Building"); this script is the reference for them.
#
#   sh ci/probe-windows.sh [OUTDIR]      (default: build-probe-windows)
#
# Leaves OUTDIR/sandproof-probe.exe.  Exit 0 built, 1 the build failed,
# 2 no mingw-w64 compiler (set CC to use another).
set -eu

cd "$(dirname "$0")/.."
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
platforms/windows/probe/wprobe_proc.c platforms/windows/probe/wprobe_unsupported.c
platforms/windows/probe/wprobe_names_table.c platforms/windows/probe/winerr_table.c"

mkdir -p "$out"
# -municode: wmain, the arguments as UTF-16 (converted to UTF-8 by the
# probe); _WIN32_WINNT 0x0A00: Windows 10 APIs (inet_pton, the unprivileged
# symlink flag); -static: no libgcc or winpthread DLL beside the probe.
# shellcheck disable=SC2086
"$cc" -std=gnu11 -O2 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Werror \
	-D_WIN32_WINNT=0x0A00 -DWIN32_LEAN_AND_MEAN -municode \
	-Iharness/probe -Iplatforms/common -Iutil -Iplatforms/windows/probe \
	-o "$out/sandproof-probe.exe" $src -static -lws2_32
echo "probe-windows.sh: built $out/sandproof-probe.exe"
