#!/bin/sh
# test_winplan_golden.sh SANDPROOF_REF GOLDEN_DIR
#
# The Windows plan's golden files (tests/winplan), compared byte for byte.
# For each request NAME.json (its extra `profile` flags, one argument a line, in
# NAME.args), `sandproof-ref profile --os windows --request NAME.json` must
#   - with NAME.plan:  exit 0, print exactly NAME.plan, say nothing on stderr;
#   - with NAME.err: exit 2, print nothing, say exactly NAME.err on stderr.
# A request with neither, or both, or an expectation without its request,
# fails; so does a folder with fewer than MIN_PROFILES plans or MIN_REFUSALS
# refusals (a test that finds nothing must not pass).
#
# SANDPROOF_UPDATE_GOLDEN=1 rewrites NAME.plan / NAME.err from what the
# profile prints now (then review every change by eye: git diff).
set -u
[ $# -eq 2 ] && [ -x "$1" ] && [ -d "$2" ] || {
	echo "usage: $0 SANDPROOF_REF GOLDEN_DIR" >&2; exit 2; }
case $1 in /*) ref=$1 ;; *) ref=$(pwd)/$1 ;; esac
cd "$2" || exit 2
MIN_PROFILES=15
MIN_REFUSALS=8
update=${SANDPROOF_UPDATE_GOLDEN:-0}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
n=0 fail=0 profiles=0 refusals=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# Run `profile` for one request: its status in $rc, output in $work.
run_profile() {
	name=$1
	set -- --os windows --request "$name.json"
	if [ -f "$name.args" ]; then
		while IFS= read -r arg || [ -n "$arg" ]; do
			set -- "$@" "$arg"
		done < "$name.args"
	fi
	"$ref" profile "$@" > "$work/out" 2> "$work/err"
	rc=$?
}

check_one() {
	name=$1
	run_profile "$name"
	# Only a profile (0) or a refusal (2) becomes a golden file.
	if [ "$update" = 1 ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; }; then
		rm -f "$name.plan" "$name.err"
		if [ "$rc" -eq 0 ]; then cp "$work/out" "$name.plan"; else cp "$work/err" "$name.err"; fi
	fi
	if [ -f "$name.plan" ] && [ -f "$name.err" ]; then
		notok "$name: both $name.plan and $name.err"
	elif [ -f "$name.plan" ]; then
		profiles=$((profiles + 1))
		if [ "$rc" -eq 0 ] && cmp -s "$work/out" "$name.plan" && [ ! -s "$work/err" ]; then
			ok "$name: profile as in $name.plan"
		else
			notok "$name: exit $rc, profile differs from $name.plan:"
			diff "$name.plan" "$work/out" | head -20 | sed 's/^/#   /'
			sed 's/^/#   stderr: /' "$work/err"
		fi
	elif [ -f "$name.err" ]; then
		refusals=$((refusals + 1))
		if [ "$rc" -eq 2 ] && cmp -s "$work/err" "$name.err" && [ ! -s "$work/out" ]; then
			ok "$name: refused as in $name.err"
		else
			notok "$name: exit $rc (want 2), message differs from $name.err:"
			sed 's/^/#   got: /' "$work/err"
			sed 's/^/#   want: /' "$name.err"
		fi
	else
		notok "$name: no $name.plan or $name.err"
	fi
}

for req in *.json; do
	[ -e "$req" ] || break
	check_one "${req%.json}"
done
for exp in *.plan *.err *.args; do
	[ -e "$exp" ] || continue
	[ -f "${exp%.*}.json" ] || notok "$exp: no request ${exp%.*}.json"
done
if [ "$profiles" -ge "$MIN_PROFILES" ] && [ "$refusals" -ge "$MIN_REFUSALS" ]; then
	ok "$profiles plans and $refusals refusals checked"
else
	notok "only $profiles profiles (want $MIN_PROFILES) and $refusals refusals (want $MIN_REFUSALS)"
fi
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
