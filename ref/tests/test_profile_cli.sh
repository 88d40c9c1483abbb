#!/bin/sh
# test_profile_cli.sh SANDPROOF_REF - `sandproof-ref profile`'s command line:
# usage errors, --os, the request from a file or standard input, the exit
# codes of a bad request and of a request the profile cannot express.
# (What it prints for each request is pinned by the golden files:
# platforms/macos/sbpl/tests/test_sbpl_golden.sh and
# platforms/windows/plan/tests/test_winplan_golden.sh.)
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SANDPROOF_REF" >&2; exit 2; }
ref=$1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# expect WANT_STATUS PATTERN_IN_STDERR|- WHAT -- ARGS...  (stdin: $work/in)
expect() {
	want=$1 pat=$2 what=$3
	shift 4
	"$ref" profile "$@" < "$work/in" > "$work/out" 2> "$work/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && { [ "$pat" = - ] || grep -q -- "$pat" "$work/err"; }; then
		ok "$what (exit $rc)"
	else
		notok "$what: exit $rc (want $want), stderr: $(head -c 300 "$work/err")"
	fi
}

printf '%s' '{"version":1,"command":["true"],"profile":{"filesystem":{"allow_temp":false}}}' > "$work/in"
cp "$work/in" "$work/req.json"
expect 2 "--os macos|windows and --request" "no arguments: usage error" --
expect 2 "--os macos|windows and --request" "--request without --os" -- --request "$work/req.json"
expect 2 "unsupported os" "--os linux is refused" -- --os linux --request "$work/req.json"
# --os windows judges the request's paths by the Windows rules: a POSIX path
# is refused by name, a drive path is printed as the plan.
printf '%s' '{"version":1,"command":["true"],"cwd":"/home/u","profile":{"filesystem":{"allow_temp":false}}}' > "$work/in"
expect 2 'cwd: must be an absolute Windows path' "--os windows refuses a POSIX path" -- --os windows --request -
printf '%s' '{"version":1,"command":["true"],"profile":{"filesystem":{"allow_temp":false,"write_roots":[{"root":"c:/w"}]}}}' > "$work/in"
expect 0 - "--os windows prints the plan" -- --os windows --request -
grep -q '^ace 1: allow capability,account "C:\\w"$' "$work/out" && [ ! -s "$work/err" ] &&
	ok "the plan names the cleaned write root, nothing on stderr" ||
	notok "the plan names the cleaned write root, nothing on stderr"
expect 2 "message-tag is for --os macos" "--os windows with --message-tag" -- --os windows --request - --message-tag T
expect 0 - "--os windows --format json" -- --os windows --request - --format json
head -c 10 "$work/out" | grep -q '^{"token":{' && [ "$(wc -l < "$work/out")" -eq 1 ] &&
	ok "--format json prints one JSON object on one line" ||
	notok "--format json prints one JSON object on one line"
expect 2 "format must be text or json" "--format yaml is refused" -- --os windows --request - --format yaml
expect 2 "format is for --os windows" "--os macos with --format" -- --os macos --request - --format json
printf '%s' '{"version":1,"command":["true"],"profile":{"filesystem":{"allow_temp":false}}}' > "$work/in"
expect 2 "unexpected argument" "a stray argument" -- --os macos --request - extra
expect 2 "bad option" "an unknown option" -- --os macos --request - --bogus
expect 2 "cannot open" "a missing request file" -- --os macos --request "$work/none.json"
expect 0 - "--help" -- --help
grep -q "usage: sandproof-ref profile" "$work/out" && ok "--help prints the usage" ||
	notok "--help prints the usage"
expect 0 - "a request from a file" -- --os macos --request "$work/req.json"
cp "$work/out" "$work/from_file"
expect 0 - "the same request from standard input" -- --os macos --request -
cmp -s "$work/out" "$work/from_file" && ok "file and stdin print the same profile" ||
	notok "file and stdin print the same profile"
head -1 "$work/out" | grep -q '^;; sandproof Seatbelt profile' &&
	grep -q '^(version 1)$' "$work/out" && grep -q '^(deny default)$' "$work/out" &&
	[ ! -s "$work/err" ] && ok "the output is a profile, nothing on stderr" ||
	notok "the output is a profile, nothing on stderr"
printf '%s' '{"version":1,"command":["true"],"profile":{"filesystem":{"allow_temp":false,"write_roots":[{"root":"/Users/dev/p"}]}}}' > "$work/in"
expect 0 - "a write root" -- --os macos --request - --message-tag T1
grep -q '^;; -D WRITE_ROOT_0=/Users/dev/p$' "$work/out" &&
	grep -q '^;; -D WRITE_ROOT_0_PROTECTED_0=/Users/dev/p/.git/hooks$' "$work/out" &&
	grep -q '(with message "T1")' "$work/out" &&
	ok "parameters as ';; -D NAME=VALUE' lines, the tag on denies" ||
	notok "parameters as ';; -D NAME=VALUE' lines, the tag on denies"
printf '%s' '{"version":1,"command":["true"],"profil":{}}' > "$work/in"
expect 2 "profil: unknown field" "a bad request: exit 2 naming the field" -- --os macos --request -
[ ! -s "$work/out" ] && ok "a bad request prints no profile" || notok "a bad request prints no profile"
printf '%s' '{"version":1,"command":["true"]}' > "$work/in"
expect 2 "refused: profile.filesystem.allow_temp" "allow_temp without --temp-dir: exit 2" -- \
	--os macos --request -
expect 0 - "allow_temp with --temp-dir" -- --os macos --request - --temp-dir /private/var/sp/tmp
grep -q '^;; -D TEMP_DIR=/private/var/sp/tmp$' "$work/out" && ok "TEMP_DIR is a parameter" ||
	notok "TEMP_DIR is a parameter"
expect 2 "refused: temp_dir.*/private/tmp/sp" "a /tmp --temp-dir: exit 2 with the canonical spelling" -- \
	--os macos --request - --temp-dir /tmp/sp
[ ! -s "$work/out" ] && ok "a refusal prints no profile" || notok "a refusal prints no profile"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
