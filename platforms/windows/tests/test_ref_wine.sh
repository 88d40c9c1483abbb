#!/bin/sh
# test_ref_wine.sh REF - sandproof-ref.exe under Wine (ctest in the
# windows cross-build, label "wine"): plumbing only, never a Windows result.
#   - --version and --help exit 0 and print what they should;
#   - `run` fails closed (the backend refuses under Wine, which enforces
#     nothing): a sandbox_setup_failure outcome with the typed
#     setup_error, exit 0, and the command NEVER ran - checked on the host:
#     the file the command would have created does not exist;
#   - `exec` exits 125 and runs nothing either.
# REF: a wrapper running sandproof-ref.exe under wine (CMakeLists.txt).
# Exit 0 all held, 1 otherwise.
set -u
ref=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/sp-refwine.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

out=$("$ref" --version 2>&1); rc=$?
check "--version exits 0 and names itself" '[ $rc -eq 0 ] && echo "$out" | grep -q "^sandproof-ref "'
out=$("$ref" --help 2>&1); rc=$?
check "--help exits 0 with the usage" '[ $rc -eq 0 ] && echo "$out" | grep -q "usage: sandproof-ref run"'

# The command would create $marker (Wine maps / to Z:, so the host path works).
marker=$work/ran
cat >"$work/req.json" <<JSON
{"version":1,"command":["cmd","/c","echo x > Z:$marker"],"cwd":"Z:$work",
 "profile":{"filesystem":{"kind":"unrestricted"},"network":{"mode":"allow"}}}
JSON
"$ref" run --request "Z:$work/req.json" >"$work/out" 2>"$work/err"; rc=$?
check "run exits 0 (an outcome was written)" '[ $rc -eq 0 ]'
check "run: kind sandbox_setup_failure" 'grep -q "\"kind\":\"sandbox_setup_failure\"" "$work/out"'
check "run: typed setup_error step unsupported, EOPNOTSUPP" \
	'grep -q "\"setup_error\":{\"step\":\"unsupported\",\"errno\":\"EOPNOTSUPP\"" "$work/out"'
check "run: the refusal names Wine" 'grep -q "running under Wine" "$work/out"'
check "run: the command never ran (no $marker on the host)" '[ ! -e "$marker" ]'
"$ref" exec --unrestricted --network allow -- cmd /c "echo x > Z:$marker" >/dev/null 2>&1; rc=$?
check "exec exits 125 (refused)" '[ $rc -eq 125 ]'
check "exec: the command never ran" '[ ! -e "$marker" ]'
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
