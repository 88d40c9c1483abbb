#!/bin/sh
# ci/homebrew.sh - the Homebrew formula (packaging/homebrew/sandproof.rb)
# built from this checkout, on macOS (the macOS CI leg runs it):
#   1. `git archive HEAD` packs the checkout as sandproof-<version>.tar.gz;
#      the formula template gets its file:// URL and SHA-256 and goes into
#      a local tap (Homebrew installs formulae from taps only);
#   2. brew install --build-from-source, then brew test (the formula's own
#      test: versions, `env` says installed, the catalogue listed);
#   3. the installed copy from Homebrew's bin/: its data found in its keg
#      (env: layout installed, every path in the Cellar), man finds
#      sandproof(1);
#   4. brew uninstall and untap: nothing of it left in the Cellar.
# Exit 0 all held, 1 otherwise.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ "$(uname -s)" = Darwin ] || { echo "ci/homebrew.sh: macOS only" >&2; exit 1; }
export HOMEBREW_NO_AUTO_UPDATE=1 HOMEBREW_NO_INSTALL_FROM_API=1 HOMEBREW_NO_ANALYTICS=1
version=$(sed -n 's/^project(sandproof VERSION \([0-9.]*\).*/\1/p' "$here/CMakeLists.txt")
tap=sandproof-ci/local
work=$(mktemp -d "${TMPDIR:-/tmp}/sandproof-brew.XXXXXX")
cleanup() {
	brew uninstall --force sandproof >/dev/null 2>&1 || true
	brew untap "$tap" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

tarball=$work/sandproof-$version.tar.gz
git -C "$here" archive --format=tar.gz --prefix="sandproof-$version/" -o "$tarball" HEAD
sha=$(shasum -a 256 "$tarball" | cut -d' ' -f1)
brew tap-new --no-git "$tap" >/dev/null
formula_dir=$(brew --repository "$tap")/Formula
mkdir -p "$formula_dir"
sed -e "s|@TARBALL_URL@|file://$tarball|" -e "s|@TARBALL_SHA256@|$sha|" \
	"$here/packaging/homebrew/sandproof.rb" >"$formula_dir/sandproof.rb"
brew install --build-from-source "$tap/sandproof"
brew test "$tap/sandproof"

bin=$(brew --prefix)/bin
cellar=$(brew --cellar sandproof)
"$bin/sandproof" env >"$work/env"
grep -q '"layout":[[:space:]]*"installed"' "$work/env" ||
	{ cat "$work/env"; echo "ci/homebrew.sh: the installed sandproof is not in its keg's layout" >&2; exit 1; }
paths=$(sed -n 's/^[[:space:]]*"path":[[:space:]]*"\(.*\)",*$/\1/p' "$work/env")
[ "$(printf '%s\n' "$paths" | grep -c "^$cellar/")" -eq 4 ] ||
	{ echo "ci/homebrew.sh: data not all in $cellar: $paths" >&2; exit 1; }
man -w sandproof | grep -q "sandproof\.1" ||
	{ echo "ci/homebrew.sh: man does not find sandproof(1)" >&2; exit 1; }
echo "ci/homebrew.sh: $("$bin/sandproof" --version) installed from the formula, data in $cellar"

brew uninstall sandproof
[ ! -e "$cellar" ] || [ -z "$(ls -A "$cellar")" ] ||
	{ echo "ci/homebrew.sh: $cellar left behind" >&2; exit 1; }
echo "ci/homebrew.sh: uninstalled, nothing left in $cellar"
