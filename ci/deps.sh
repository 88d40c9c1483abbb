#!/bin/sh
# ci/deps.sh - install every build and test dependency on a fresh Debian
# machine.  Idempotent and non-interactive: installs only what is missing.
# (chromium renders the HTML report in a browser test; peers are installed
# separately by ci/peers.sh.)
set -eu

PKGS="build-essential cmake pkg-config liblua5.4-dev lua5.4 libseccomp-dev
libcjson-dev libsqlite3-dev sqlite3 procps util-linux iproute2 git python3
chromium fonts-dejavu-core"

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
