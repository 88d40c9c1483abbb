#!/bin/sh
# ci/peers.sh - install the real sandboxes ("peers") the conformance matrix
# drives: bubblewrap, firejail and podman (with crun and what rootless podman
# needs) from Debian, pinned to the versions below, then the npm peers through
# ci/peers-npm.sh when that script exists; and, for rootless podman,
# subordinate uid and gid ranges for the unprivileged test user
# sandproof-test (created as ci/unpriv.sh creates it).
# Idempotent and non-interactive: a package already at its pinned version is
# left alone; apt's lists are refreshed only when a pinned version is not
# offered by the current lists; an existing /etc/subuid or /etc/subgid entry
# of that user is kept.  Exit status 0 when every peer is in place.
set -eu

# Pinned versions (Debian 12 "bookworm"; bubblewrap from bookworm-security).
# Bump them here, and the matrix in docs/RUNNERS.md records what ran.
BWRAP_VERSION="0.8.0-2+deb12u1"
FIREJAIL_VERSION="0.9.72-2"
# podman and its OCI runtime; conmon, catatonit (--init) and, for rootless
# podman, newuidmap/newgidmap (uidmap), slirp4netns and fuse-overlayfs
PODMAN_VERSION="4.3.1+ds1-8+deb12u1+b3"
CRUN_VERSION="1.8.1-1+deb12u1"
CONMON_VERSION="2.1.6+ds1-1"
CATATONIT_VERSION="0.1.7-1+b2"
UIDMAP_VERSION="1:4.13+dfsg1-1+deb12u2"
SLIRP4NETNS_VERSION="1.2.0-1"
FUSE_OVERLAYFS_VERSION="1.10-1"
# the unprivileged user of ci/unpriv.sh, and the subordinate ids it gets
UNPRIV_USER=sandproof-test
SUBID_COUNT=65536

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
for pv in "bubblewrap=$BWRAP_VERSION" "firejail=$FIREJAIL_VERSION" "podman=$PODMAN_VERSION" \
	"crun=$CRUN_VERSION" "conmon=$CONMON_VERSION" "catatonit=$CATATONIT_VERSION" \
	"uidmap=$UIDMAP_VERSION" "slirp4netns=$SLIRP4NETNS_VERSION" \
	"fuse-overlayfs=$FUSE_OVERLAYFS_VERSION"; do
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

# subid_add FILE: a range of SUBID_COUNT ids for UNPRIV_USER in FILE
# (/etc/subuid or /etc/subgid), after every range already there, unless the
# user has one.
subid_add() {
	[ -f "$1" ] && grep -q "^$UNPRIV_USER:" "$1" && return 0
	start=$( (cat "$1" 2>/dev/null || true) |
		awk -F: 'BEGIN { e = 100000 } NF == 3 && $2 + $3 > e { e = $2 + $3 } END { print e }')
	echo "$UNPRIV_USER:$start:$SUBID_COUNT" | $SUDO tee -a "$1" >/dev/null
}
id "$UNPRIV_USER" >/dev/null 2>&1 ||
	$SUDO useradd --system --create-home --shell /bin/sh "$UNPRIV_USER"
subid_add /etc/subuid
subid_add /etc/subgid

if [ -f ci/peers-npm.sh ]; then
	sh ci/peers-npm.sh
fi
