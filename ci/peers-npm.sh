#!/bin/sh
# ci/peers-npm.sh - install the npm-packaged peer sandboxes, pinned and
# idempotent: @openai/codex (`codex sandbox`) and @anthropic-ai/sandbox-runtime
# (`srt`, which needs socat and ripgrep from Debian).
#
# Prefix: /opt/sandproof-peers (override with SANDPROOF_PEERS).  npm installs
# with `--prefix`, so the commands land in $PREFIX/bin/{codex,srt} and the
# packages in $PREFIX/lib/node_modules.  The harness adapters
# (harness/runners/{codex,srt}.lua) look there first, then on PATH.
# The prefix is root-owned and world-readable, so an unprivileged user can run
# the peers but cannot replace them.
#
# Usage: ci/peers-npm.sh [--check]   (--check: exit 1 if anything is missing)
set -eu

CODEX_VERSION=0.171.0
SRT_VERSION=0.0.83
PREFIX=${SANDPROOF_PEERS:-/opt/sandproof-peers}
# srt drives bubblewrap and needs socat (its proxy bridges) and ripgrep (its
# scan for dangerous files); node/npm install and run both peers
APT_PKGS="socat ripgrep bubblewrap nodejs npm"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# installed version of an npm package under $PREFIX, empty when absent
npm_have() {
	f="$PREFIX/lib/node_modules/$1/package.json"
	[ -r "$f" ] || return 0
	sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$f" | head -n 1
}

# Debian packages still to install; node and npm may come from elsewhere
# (e.g. a CI image's own node): they count as present when both commands exist
apt_missing() {
	missing=""
	have_node=0
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && have_node=1
	for p in $APT_PKGS; do
		case "$p" in nodejs|npm) [ $have_node -eq 1 ] && continue ;; esac
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	echo "$missing"
}

if [ "${1:-}" = "--check" ]; then
	rc=0
	m=$(apt_missing)
	[ -z "$m" ] || { echo "missing Debian packages:$m"; rc=1; }
	[ "$(npm_have @openai/codex)" = "$CODEX_VERSION" ] ||
		{ echo "missing @openai/codex@$CODEX_VERSION in $PREFIX"; rc=1; }
	[ "$(npm_have @anthropic-ai/sandbox-runtime)" = "$SRT_VERSION" ] ||
		{ echo "missing @anthropic-ai/sandbox-runtime@$SRT_VERSION in $PREFIX"; rc=1; }
	exit $rc
fi

missing=$(apt_missing)
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

want=""
[ "$(npm_have @openai/codex)" = "$CODEX_VERSION" ] || want="$want @openai/codex@$CODEX_VERSION"
[ "$(npm_have @anthropic-ai/sandbox-runtime)" = "$SRT_VERSION" ] ||
	want="$want @anthropic-ai/sandbox-runtime@$SRT_VERSION"
if [ -n "$want" ]; then
	$SUDO mkdir -p "$PREFIX"
	# --ignore-scripts: nothing of the peers runs at install time; codex's
	# native binary comes as an optional dependency package (no download)
	# shellcheck disable=SC2086
	$SUDO npm install --global --prefix "$PREFIX" --no-fund --no-audit \
		--ignore-scripts --loglevel=error $want
	$SUDO chmod -R a+rX "$PREFIX"
fi

"$PREFIX/bin/codex" --version >/dev/null
"$PREFIX/bin/srt" --version >/dev/null
