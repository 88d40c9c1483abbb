#!/bin/sh
# test_catalogue.sh SANDPROOF - the scenario catalogue against the reference
# runner and against `none`, the negative control:
#   - every scenario passes (or skips / is unsupported) against ref;
#   - every scenario states outcomes, or why it cannot run, on linux, macos
#     and windows;
#   - every confinement scenario FAILS against none (a scenario that cannot
#     fail proves nothing); only files that say `unconfined_passes = true`
#     may pass, and RT scenarios are unsupported by none;
#   - the pass above is one `run --jobs N` (N is ci/run-suite.sh's,
#     ci/jobs.sh), as the main job runs it; test_catalogue_jobs1.sh
#     compares none's verdicts in it with a --jobs 1 run (its database is
#     kept for that: SANDPROOF_CATALOGUE_KEEP);
#   - a harness SIGKILLed mid-run leaves an intact database holding every
#     result it printed before the kill;
#   - no scenario reads a probe result by a constant position (r.probe[3]);
#   - a scenario that can return control_failed names, in `control`, a
#     scenario of the catalogue (not itself) checking the missing ability;
#     against none, a failed control is inconclusive only when that
#     scenario fails there;
#   - sandproof-ref through the contract adapter (`--runner
#     contract:PATH`, its capabilities from its own --sandproof-capabilities,
#     started in a network lab like every runner not our own) gets exactly
#     ref's verdict on every scenario, in the same run.
set -u
sp=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/harness/tests/sc_lib.sh" # sc_wait, sc_reap
out=$(mktemp -d /tmp/sandproof-cat.XXXXXX)
trap 'rm -rf "$out"' EXIT
n=0 pass=0 fail=0
check() { # cond description
	n=$((n + 1))
	if eval "$1"; then pass=$((pass + 1)); echo "ok $n - $2"
	else fail=$((fail + 1)); echo "not ok $n - $2"; fi
}

# Probe results are read by name (r.op.NAME), never by a constant position:
# an op inserted later must not shift what a check reads.
positional=$(grep -lE '\.probe\[[0-9]' "$src"/scenarios/*/*.lua | tr '\n' ' ')
check '[ -z "$positional" ]' "no scenario reads probe results by position${positional:+: $positional}"

# A failed positive control is charged to the scenario checking the ability
# (docs/SCENARIOS.md, control): every file that can return control_failed,
# itself or through a lib helper, declares one that exists.
"$sp" list | cut -f1 | sort >"$out/ids"
helpers='lib\.(protected_create|socket_family_refused|deny_unreachable|sibling_refused|ro_subpath_kept|sibling_prefix_write|swap_sweep)\('
undeclared='' unknown=''
for f in "$src"/scenarios/*/*.lua; do
	ctl=$(sed -n 's/^  control = "\([^"]*\)",$/\1/p' "$f")
	if grep -qE "control_failed|$helpers" "$f" && [ -z "$ctl" ]; then undeclared="$undeclared ${f#"$src"/}"; fi
	if [ -n "$ctl" ] && ! grep -qx "$ctl" "$out/ids"; then unknown="$unknown ${f#"$src"/}:$ctl"; fi
done
check '[ -z "$undeclared" ]' "every scenario with a positive control declares control${undeclared:+:$undeclared}"
check '[ -z "$unknown" ]' "every control names a scenario of the catalogue${unknown:+:$unknown}"

# One pass of the catalogue against ref, none and sandproof-ref through the
# contract adapter, --jobs N as the main job runs it; the checks below read
# its database.  SANDPROOF_CATALOGUE_CONTRACT=0 (ci/test.sh's sanitizer
# leg: the root and unprivileged legs run it) leaves out the contract
# adapter's pass.
ref=$(dirname "$sp")/sandproof-ref
jobs=$(sh "$src/ci/jobs.sh")
runners="ref,none,contract:$ref"
[ "${SANDPROOF_CATALOGUE_CONTRACT:-1}" != 0 ] || runners=ref,none
"$sp" run --runner "$runners" --jobs "$jobs" --out "$out/a" >"$out/run.log" 2>&1
status=$?
check '[ "$status" -eq 1 ]' "run --jobs $jobs with the none control exits 1 (got $status)"
db=$out/a/linux.sqlite
q() { sqlite3 "$db" "$1"; }
total=$("$sp" list | wc -l)
check '[ "$total" -ge 8 ] && [ "$(q "select count(*) from result where runner = '"'ref'"'")" -eq "$total" ]' \
	"one ref result per scenario ($total)"
# every scenario states, for each of linux, macos and windows, the outcomes
# that pass or why it cannot run there ({ unsupported = "why" }): never
# silence (the engine refuses a file without; this checks what was stored)
noexp=$(q "select id from scenario where
	(select count(*) from json_each(scenario.expect_json) e where e.key in ('linux','macos','windows') and
	 ((e.type = 'array' and json_array_length(e.value) > 0) or
	  (e.type = 'object' and length(json_extract(e.value, '$.unsupported')) > 0))) <> 3" | tr '\n' ' ')
check '[ -z "$noexp" ] && [ "$(q "select count(*) from scenario")" -eq "$total" ]' \
	"every scenario has outcomes or an unsupported reason for linux, macos and windows${noexp:+: $noexp}"
bad=$(q "select scenario_id || ':' || verdict from result where runner='ref' and verdict not in ('pass','skip','unsupported')")
nskip=$(q "select count(*) from result where runner='ref' and verdict = 'skip'")
check '[ -z "$bad" ]' "every scenario passes against ref (or is unsupported on linux; $nskip skipped on this host)${bad:+: $bad}"
allowed=$(grep -l 'unconfined_passes = true' "$src"/scenarios/*/*.lua | xargs -r grep -h 'id = "' | sed 's/.*id = "\([^"]*\)".*/\1/' | tr '\n' ' ')
for id in $(q "select scenario_id from result where runner='none'"); do
	v=$(q "select verdict from result where runner='none' and scenario_id='$id'")
	case " $allowed " in
	*" $id "*) check '[ "$v" = pass ]' "none: $id is a capability, passes ($v)" ;;
	*) reason=$(q "select coalesce(reason,'') from result where runner='none' and scenario_id='$id'")
	   # unsupported only for what the control cannot even be asked:
	   # runtime roots, eviction, raw requests (its adapter says so)
	   case $v:$reason in
	   unsupported:*"none runner"*|unsupported:*"no runtime-root eviction"*|unsupported:*"no host check"*)
		check true "none: $id cannot be asked of the control ($reason)" ;;
	   unsupported:"the scenario is unsupported on linux: "*)
		# the file itself says why it cannot run on this OS
		f=$(grep -l "id = \"$id\"" "$src"/scenarios/*/*.lua)
		check '[ -n "$f" ] && grep -q "linux = { unsupported = " $f' "none: $id declares itself unsupported on linux" ;;
	   skip:*)
		# the host lacks a prerequisite (a case-insensitive volume needs
		# root): nothing was tested against either runner, never a pass
		rv=$(q "select verdict from result where runner='ref' and scenario_id='$id'")
		check '[ "$rv" = skip ]' "none: $id skipped on this host, as against ref # SKIP $reason" ;;
	   inconclusive:*"the ability is checked by "*)
		# the control itself failed: the ability's own scenario must fail here
		by=${reason##*the ability is checked by }; by=${by%)}
		bv=$(q "select verdict from result where runner='none' and scenario_id='$by'")
		check '[ "$bv" = fail ]' "none: $id's control failed, charged to $by, which fails ($bv)" ;;
	   *) check '[ "$v" = fail ]' "none: confinement claim $id fails ($v)" ;;
	   esac ;;
	esac
done

# Its database, for test_catalogue_jobs1 (none's verdicts at --jobs 1
# against these), when ctest asks: SANDPROOF_CATALOGUE_KEEP=FILE.
if [ -n "${SANDPROOF_CATALOGUE_KEEP:-}" ]; then
	rm -f "$SANDPROOF_CATALOGUE_KEEP"
	cp "$db" "$SANDPROOF_CATALOGUE_KEEP.part" && mv "$SANDPROOF_CATALOGUE_KEEP.part" "$SANDPROOF_CATALOGUE_KEEP"
	echo "$status" >"$SANDPROOF_CATALOGUE_KEEP.status"
fi

# The contract adapter over sandproof-ref: the verdict of every scenario is
# ref's.  Principled differences would be listed here, each with its
# reason, as "scenario_id:ref-verdict/contract-verdict"; there are none: the
# contract adapter is the ref adapter (sandproof.contract), the capability
# object sandproof-ref prints declares all that ref.lua declares, and the
# network lab the contract runner starts in changes no verdict.
if [ "${SANDPROOF_CATALOGUE_CONTRACT:-1}" = 0 ]; then
	n=$((n + 1)); pass=$((pass + 1))
	echo "ok $n - contract:sandproof-ref gets ref's verdicts # SKIP SANDPROOF_CATALOGUE_CONTRACT=0 (compared in the root and unprivileged legs)"
else
	allowed_diff=''
	diff=$(q "select a.scenario_id || ':' || a.verdict || '/' || coalesce(b.verdict, 'missing')
		from result a left join result b on b.scenario_id = a.scenario_id and b.runner = 'sandproof-ref'
		where a.runner = 'ref' and (b.verdict is null or b.verdict <> a.verdict)" | tr '\n' ' ')
	unlisted=''
	for d in $diff; do
		case " $allowed_diff " in *" $d "*) ;; *) unlisted="$unlisted $d" ;; esac
	done
	# what each differing pair observed, its notes included (a CI log is all
	# there is to go by)
	[ -z "$unlisted" ] || q "select r.runner || ' ' || r.scenario_id || ': ' || r.verdict || ' ' ||
		coalesce(r.observed, '-') || ' ' || coalesce(r.reason, '') || ' | ' ||
		coalesce((select group_concat(e.kind || '=' || substr(e.body, 1, 300), ' | ') from evidence e where e.result_id = r.id), '')
		from result r where r.runner in ('ref', 'sandproof-ref') and r.scenario_id in
		(select a.scenario_id from result a join result b on b.scenario_id = a.scenario_id
		 where a.runner = 'ref' and b.runner = 'sandproof-ref' and a.verdict <> b.verdict)" | sed 's/^/# /'
	check '[ -z "$unlisted" ] && [ "$(q "select count(*) from result where runner = '"'sandproof-ref'"'")" -eq "$total" ]' \
		"contract:sandproof-ref: every scenario's verdict is ref's${unlisted:+ (ref/contract:$unlisted)}"
	# and not by declaring too little: it was asked what only the full set allows
	check '[ "$(q "select count(*) from result where runner = '"'sandproof-ref'"' and verdict = '"'pass'"'")" -eq "$(q "select count(*) from result where runner = '"'ref'"' and verdict = '"'pass'"'")" ]' \
		"contract:sandproof-ref passes as many scenarios as ref"
fi

# SIGKILL mid-run: the database keeps every finished result.  The log
# exists before the run starts (the run's own redirection comes after `&`
# returned: polled before it, a missing file read as "no results" once
# ended the wait at once and killed a run that had printed none), and the
# wait is bounded and ends if the run does.
n_printed() { grep -cE '^(pass|fail|skip|error|unsupported|inconclusive) ' "$out/k.log"; }
three() { [ "$(n_printed)" -ge 3 ]; }
: >"$out/k.log"
"$sp" run --runner ref --out "$out/k" >"$out/k.log" 2>&1 &
pid=$!
sc_wait 600 "$pid" three
printed=$(n_printed)
kill -KILL "$pid"
sc_reap 30 "$pid"
kdb=$out/k/linux.sqlite
check '[ "$(sqlite3 "$kdb" "pragma integrity_check")" = ok ]' "killed run: integrity_check ok"
check '[ "$printed" -ge 3 ] && [ "$(sqlite3 "$kdb" "select count(*) from result")" -ge "$printed" ]' \
	"killed run: all $printed printed results (3 at least, before the kill) are in the database"
check '[ -z "$(sqlite3 "$kdb" "select finished_at from run")" ]' "killed run: the run is not marked finished"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
