#!/bin/sh
# ci/deps.sh [--build] - install every build and test dependency on a
# fresh Debian machine, or on macOS with Homebrew (below).  Idempotent and
# non-interactive: installs only what is missing.  --build: only what
# building sandproof needs (the GitHub Action, ci/action.sh install).
# (chromium renders the HTML report in a browser test; exfatprogs and
# exfat-fuse make the case-insensitive workspace of the meta.casefold_*
# scenarios, t:casefold_workspace; bubblewrap runs docs/YOUR-RUNNER.md's
# example runner (test_your_runner); the peers, pinned, are installed
# separately by ci/peers.sh.)
set -eu

# macOS: Homebrew's formulas.  lua is 5.4 (its lua5.4.pc is what CMake asks
# for); sqlite is keg-only, so its pkg-config directory must be on
# PKG_CONFIG_PATH for the build (said below, set by the CI job).
if [ "$(uname -s)" = Darwin ]; then
	command -v brew >/dev/null 2>&1 || {
		echo "ci/deps.sh: macOS needs Homebrew (brew) to install the dependencies" >&2
		exit 1
	}
	for f in cmake pkgconf lua sqlite cjson; do
		brew list --versions "$f" >/dev/null 2>&1 || HOMEBREW_NO_AUTO_UPDATE=1 brew install "$f"
	done
	PKG_CONFIG_PATH="$(brew --prefix sqlite)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
		pkg-config --exists lua5.4 libcjson sqlite3 || {
		echo "ci/deps.sh: pkg-config cannot find lua5.4, libcjson and sqlite3" >&2
		exit 1
	}
	echo "ci/deps.sh: build with PKG_CONFIG_PATH=$(brew --prefix sqlite)/lib/pkgconfig"
	exit 0
fi

BUILD_PKGS="build-essential cmake pkg-config liblua5.4-dev libseccomp-dev
libcjson-dev libsqlite3-dev"
# man-db: test_man reads the man pages through man -l; python3-yaml:
# ci/check_github.py loads the workflow and action.yml; ruby: ruby -c of
# the Homebrew formula (packaging/tests/test_packaging.sh)
PKGS="$BUILD_PKGS lua5.4 sqlite3 procps util-linux iproute2 git python3
exfatprogs exfat-fuse bubblewrap
chromium fonts-dejavu-core
gcc-mingw-w64-x86-64 wine64 wine dpkg-dev tcl gpgv man-db python3-yaml ruby"
[ "${1:-}" != --build ] || PKGS=$BUILD_PKGS

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
