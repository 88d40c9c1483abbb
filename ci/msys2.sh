#!/bin/sh
# ci/msys2.sh - the MSYS2 package (packaging/msys2/PKGBUILD) built from
# this checkout, in an MSYS2 MINGW64 shell (the Windows CI leg runs it):
#   1. makepkg-mingw builds mingw-w64-x86_64-sandproof-<version>.pkg.tar.zst
#      (base-devel, which has makepkg, installed if missing);
#   2. pacman -U installs it; the installed copy (MINGW_PREFIX/bin) says
#      its OS is windows and finds its data under MINGW_PREFIX (env: layout
#      installed), lists the catalogue, and the probe is in
#      libexec/sandproof;
#   3. pacman -R removes it: no sandproof file left under MINGW_PREFIX.
# Exit 0 all held, 1 otherwise.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${MINGW_PREFIX:-}" ] || { echo "ci/msys2.sh: run in an MSYS2 MINGW shell" >&2; exit 1; }
pkg=${MINGW_PACKAGE_PREFIX}-sandproof
pacman -S --needed --noconfirm base-devel >/dev/null
cd "$here/packaging/msys2"
rm -rf src pkg ./*.pkg.tar.*
makepkg-mingw --cleanbuild --syncdeps --force --noconfirm
pacman -U --noconfirm ./"$pkg"-*.pkg.tar.zst
cleanup() { pacman -R --noconfirm "$pkg" >/dev/null 2>&1 || true; }
trap cleanup EXIT

sp=$MINGW_PREFIX/bin/sandproof.exe
"$sp" --version
env_json=${TMPDIR:-/tmp}/sandproof-msys2-env.json
"$sp" env >"$env_json"
grep -q '"os":[[:space:]]*"windows"' "$env_json" &&
	grep -q '"layout":[[:space:]]*"installed"' "$env_json" ||
	{ cat "$env_json"; echo "ci/msys2.sh: the installed sandproof.exe is not windows, installed" >&2; exit 1; }
n=$("$sp" list | wc -l)
[ "$n" -gt 100 ] || { echo "ci/msys2.sh: the installed copy lists $n scenarios" >&2; exit 1; }
[ -f "$MINGW_PREFIX/libexec/sandproof/sandproof-probe.exe" ] ||
	{ echo "ci/msys2.sh: no probe in $MINGW_PREFIX/libexec/sandproof" >&2; exit 1; }
# without the canary beside it, sandproof-ref.exe refuses every run
[ -f "$MINGW_PREFIX/bin/sandproof-canary.exe" ] ||
	{ echo "ci/msys2.sh: no sandproof-canary.exe in $MINGW_PREFIX/bin" >&2; exit 1; }
echo "ci/msys2.sh: $("$sp" --version) installed from the PKGBUILD, $n scenarios"

pacman -R --noconfirm "$pkg"
trap - EXIT
left=$(find "$MINGW_PREFIX" -path '*sandproof*' 2>/dev/null || true)
[ -z "$left" ] || { echo "ci/msys2.sh: left behind: $left" >&2; exit 1; }
echo "ci/msys2.sh: removed, nothing left under $MINGW_PREFIX"
