#!/bin/sh
# test_store_only.sh SRC STORE_ARCHIVE ARCHIVE... - reports/store is the only
# code that touches sqlite (DESIGN.md "Dependency rules"): no C source or
# header outside SRC/reports/store includes sqlite3.h or names a sqlite3_
# function (shell tests may run the sqlite3 CLI), and no object in the other
# ARCHIVEs (sp_harness, sp_reports) calls one.  sqlite3.h is a system header,
# so include directories cannot forbid it: this test does.  STORE_ARCHIVE
# (sp_store) must call sqlite, which shows that nm sees such calls at all.
set -u
src=$1 store=$2
shift 2
n=0 pass=0 fail=0
check() { n=$((n + 1)); if eval "$1"; then pass=$((pass + 1)); echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi; }

# every C file of the tree but the store's and build output
hits=$(find "$src" \( -name 'build*' -o -name .git -o -path "$src/reports/store" \) -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print |
	xargs grep -n -e 'sqlite3\.h' -e 'sqlite3_[a-z]' 2>/dev/null)
check '[ -z "$hits" ]' "no C file outside reports/store names sqlite3.h or a sqlite3_ call${hits:+: $hits}"
check 'nm -A "$store" 2>/dev/null | grep -q " U sqlite3_open_v2$"' "the store calls sqlite3_open_v2 ($(basename "$store"))"
for a in "$@"; do
	calls=$(nm -A "$a" 2>/dev/null | grep " U sqlite3_")
	check '[ -z "$calls" ] && nm "$a" >/dev/null 2>&1' "$(basename "$a") calls no sqlite3_ function${calls:+: $calls}"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
