#!/bin/sh
# ci/peers.sh - install the real sandboxes ("peers") the conformance matrix
# drives: bubblewrap and firejail from Debian, pinned to the versions below,
# then the npm peers through ci/peers-npm.sh when that script exists.
# Idempotent and non-interactive: a package already at its pinned version is
# left alone; apt's lists are refreshed only when a pinned version is not
# offered by the current lists.  Exit status 0 when every peer is in place.
set -eu

# Pinned versions (Debian 12 "bookworm"; bubblewrap from bookworm-security).
# Bump them here, and the matrix in docs/RUNNERS.md records what ran.
BWRAP_VERSION="0.8.0-2+deb12u1"
FIREJAIL_VERSION="0.9.72-2"

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

installed_version() { # package -> its installed version, or nothing
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}

offered() { # package version -> 0 when apt's lists offer exactly that version
	apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		grep -qxF "$2"
}

want=""
for pv in "bubblewrap=$BWRAP_VERSION" "firejail=$FIREJAIL_VERSION"; do
	p=${pv%%=*} v=${pv#*=}
	[ "$(installed_version "$p")" = "$v" ] || want="$want $pv"
done

if [ -n "$want" ]; then
	updated=0
	for pv in $want; do
		if ! offered "${pv%%=*}" "${pv#*=}" && [ "$updated" -eq 0 ]; then
			$SUDO apt-get update -qq -o DPkg::Lock::Timeout=600
			updated=1
		fi
	done
	# --allow-downgrades: the pin wins over a newer version installed by
	# hand; the lock timeout lets it wait for another apt run to finish
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends \
		--allow-downgrades $want >/dev/null
	for pv in $want; do
		p=${pv%%=*} v=${pv#*=}
		if [ "$(installed_version "$p")" != "$v" ]; then
			echo "peers.sh: $p is not at $v after install" >&2
			exit 1
		fi
	done
fi

if [ -f ci/peers-npm.sh ]; then
	sh ci/peers-npm.sh
fi
