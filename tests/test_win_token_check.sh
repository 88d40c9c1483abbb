#!/bin/sh
# tests/test_win_token_check.sh - ci/win-token-check.sh on outcomes made up
# from whoami's CSV (CRLF, as Windows writes it): the recipe's token passes;
# an enabled Administrators or S-1-5-114, another enabled group, a held
# privilege, a high label, a run that did not complete and output without
# privileges each fail with its own message (issue 32 §2).  TAP; 77 without
# jq.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq missing"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sp-tokcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

EN="Mandatory group, Enabled by default, Enabled group"
DENY="Group used for deny only"
groups() { # admin-attrs s114-attrs interactive-attrs label-sid
	printf '"Group Name","Type","SID","Attributes"\r\n'
	printf '"Everyone","Well-known group","S-1-1-0","%s"\r\n' "$EN"
	printf '"NT AUTHORITY\\Local account and member of Administrators group","Well-known group","S-1-5-114","%s"\r\n' "$2"
	printf '"BUILTIN\\Administrators","Alias","S-1-5-32-544","%s"\r\n' "$1"
	printf '"BUILTIN\\Users","Alias","S-1-5-32-545","%s"\r\n' "$EN"
	printf '"NT AUTHORITY\\INTERACTIVE","Well-known group","S-1-5-4","%s"\r\n' "$3"
	printf '"NT AUTHORITY\\LogonSessionId_0_123456","Logon ID","S-1-5-5-0-123456","%s"\r\n' "$EN"
	printf '"Mandatory Label\\Some Mandatory Level","Label","%s",""\r\n' "$4"
	printf '\r\n'
}
privs() { # extra privilege rows
	printf '"Privilege Name","Description","State"\r\n'
	printf '"SeChangeNotifyPrivilege","Bypass traverse checking","Enabled"\r\n'
	[ -z "${1:-}" ] || printf '%s\r\n' "$1"
}
outcome() { # state code stdout-file
	jq -n --arg s "$1" --argjson c "$2" --rawfile o "$3" \
		'{version:1, state:$s, kind:"success", exit:{code:$c, signal:null}, stdout:$o}' >"$tmp/o.json"
}
check() { # name want-exit pattern
	n=$((n + 1))
	sh "$src/ci/win-token-check.sh" "$tmp/o.json" t >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ] && grep -q -- "$3" "$tmp/out"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (exit $rc, wanted $2 and /$3/)"
		sed 's/^/# /' "$tmp/out"
		fail=$((fail + 1))
	fi
}

{ groups "$DENY" "$DENY" "$DENY" S-1-16-8192; privs; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "the recipe's token: holds" 0 "only SeChangeNotifyPrivilege held, integrity medium"
{ groups "$EN, Group owner" "$DENY" "$DENY" S-1-16-12288; privs; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "Administrators enabled: fails, naming it" 1 "administrative group is enabled: BUILTIN.*S-1-5-32-544"
{ groups "$DENY" "$EN" "$DENY" S-1-16-8192; privs; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "S-1-5-114 enabled: fails" 1 "administrative group is enabled: .*S-1-5-114"
{ groups "$DENY" "$DENY" "$EN" S-1-16-8192; privs; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "INTERACTIVE enabled: fails (the recipe makes it deny-only)" 1 "deny-only is enabled: .*S-1-5-4"
{ groups "$DENY" "$DENY" "$DENY" S-1-16-8192
  privs '"SeDebugPrivilege","Debug programs","Disabled"'; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "a disabled SeDebugPrivilege held: fails" 1 "privilege the recipe deletes is held: SeDebugPrivilege"
{ groups "$DENY" "$DENY" "$DENY" S-1-16-12288; privs; } >"$tmp/s"
outcome completed 0 "$tmp/s"
check "a high integrity label: fails" 1 "integrity label is S-1-16-12288"
: >"$tmp/s"
outcome error 0 "$tmp/s"
check "a run that did not complete: fails, nothing checked" 1 "did not run to exit 0"
groups "$DENY" "$DENY" "$DENY" S-1-16-8192 >"$tmp/s"
outcome completed 0 "$tmp/s"
check "groups but no privilege rows: fails, nothing checked" 1 "0 privilege rows: nothing to check"
echo "1..$n"
[ "$fail" -eq 0 ]
