#!/bin/sh
# tests/check_layers.sh SANDPROOF SANDPROOF_REF ENFORCE_LIB RUNNER_CORE_LIB -- HARNESS_LIB...
#
# The link-level half of the layering rules (docs/ARCHITECTURE.md): the
# harness drives every runner as a black box, so `sandproof` defines no
# symbol of the enforcement layer or the runner core, and `sandproof-ref`
# defines no symbol of the harness, its primitives, the store or the
# reports.  The symbol lists are read from the static libraries each layer
# is built into, so a new function is covered the day it is written.
# (The include-level half is the build itself: PRIVATE include
# directories make a forbidden #include fail to compile.)
# Exit 0 when both hold, 1 otherwise (naming the symbols), 2 usage.
set -eu
[ $# -ge 6 ] || { echo "usage: $0 SANDPROOF SANDPROOF_REF ENFORCE_LIB CORE_LIB -- HARNESS_LIB..." >&2; exit 2; }
sp=$1 ref=$2 enforce=$3 core=$4
shift 4
[ "$1" = "--" ] || { echo "$0: expected -- before the harness libraries" >&2; exit 2; }
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Global text and data symbols a file defines, one a line, sorted.
defined() { nm --defined-only -g "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u; }

defined "$enforce" "$core" >"$tmp/runner"
defined "$@" >"$tmp/harness"
defined "$sp" >"$tmp/sp"
defined "$ref" >"$tmp/ref"
status=0
for list in runner harness; do
	[ -s "$tmp/$list" ] || { echo "no symbols read from the $list libraries: is nm installed?" >&2; exit 2; }
done
comm -12 "$tmp/runner" "$tmp/sp" >"$tmp/bad_sp"
comm -12 "$tmp/harness" "$tmp/ref" >"$tmp/bad_ref"
if [ -s "$tmp/bad_sp" ]; then
	echo "not ok - sandproof defines runner symbols: $(tr '\n' ' ' <"$tmp/bad_sp")"
	status=1
else
	echo "ok - sandproof defines none of the $(wc -l <"$tmp/runner") runner symbols"
fi
if [ -s "$tmp/bad_ref" ]; then
	echo "not ok - sandproof-ref defines harness symbols: $(tr '\n' ' ' <"$tmp/bad_ref")"
	status=1
else
	echo "ok - sandproof-ref defines none of the $(wc -l <"$tmp/harness") harness symbols"
fi
exit "$status"
