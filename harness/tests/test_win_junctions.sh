#!/bin/sh
# test_win_junctions.sh SANDPROOF - the Windows-only junction scenarios
# (swap.junction_write_root_held, _ro_subpath_held, _hooks_held,
# _runtime_root_held, held by an oplock at each open;
# swap.junction_write_root_swapper) run on Linux,
# where their expectations say unsupported, through winmodel/jmodel.lua:
# the junction, the oplock hold and the junction swapper modelled with
# symlinks and a runner model that reports its opens of the policy paths.
# Their copies expect Windows's set (confined or refused) on Linux and run
# with the model's primitives in place of the native ones.  It shows that
# each can fail by the bait and switch it is about, and pass:
#   - a runner granting the write root by name and opening it again for
#     the command (byname), or denying a read-only subpath or .git/hooks as
#     the object resolved at setup (byname, pinned): escaped;
#   - a runner writing into the write root it resolved at setup (pinned):
#     confined, over every window of the sweep;
#   - a runner refusing a policy path that is a link (refuse): refused;
#   - a runner replacing a runtime root that is a link with a fresh one
#     (reprovision): confined.
# Needs perl (the swapper's flips; Debian's perl-base is essential).
# A stand-in for the native parts (junctions, oplocks, FSCTL retargets):
# never a Windows result, and nothing here says how a Windows runner
# answers (only the native CI leg can).
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp winjct

# the scenarios: Windows's expectation on Linux, the model's primitives
mkdir -p "$tmp/sc/swap"
for s in write_root_held ro_subpath_held hooks_held runtime_root_held write_root_swapper; do
	out=$tmp/sc/swap/junction_$s.lua
	sc_copy_expecting "$here/../../scenarios/swap/junction_$s.lua" "$out.in" '"confined", "refused"'
	sed 's/^  run = function(t)$/  run = function(t) t = require("jmodel").wrap(t)/' "$out.in" >"$out"
	rm "$out.in"
	grep -q 'require("jmodel").wrap(t)' "$out" || notok "junction_$s: its run line was not rewritten"
done

sc_harness "$tmp/h" "$here/../runners/none.lua" "$here/winmodel/jmodel.lua" "$here/winmodel/argv.lua"
for m in byname pinned refuse reprovision; do
	printf 'return require("jmodel").adapter("jmodel_%s", "%s")\n' "$m" "$m" >"$tmp/h/runners/jmodel_$m.lua"
done
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/sc" \
	"$sp" run --runner jmodel_byname,jmodel_pinned,jmodel_refuse,jmodel_reprovision --out "$tmp/out" >"$tmp/run.log" 2>"$tmp/run.err"

expect() { sc_expect "$tmp/run.log" "swap.junction_$1" "jmodel_$2" "$3" "$4"; } # SCENARIO MODEL OUTCOME WHY
expect write_root_held byname escaped "retargeted after setup, the command's open goes outside"
expect write_root_held pinned confined "the command writes into what setup resolved"
expect write_root_held refuse refused "a write root that is a link"
expect ro_subpath_held byname escaped "denied as its old target, written through its new one"
expect ro_subpath_held pinned escaped "the same: only the write roots are pinned"
expect ro_subpath_held refuse refused "a read-only subpath that is a link"
expect hooks_held byname escaped "hooks denied as its old target, planted through its new one"
expect hooks_held refuse refused ".git/hooks a link"
expect runtime_root_held byname escaped "retargeted after setup, the command's writes go outside"
expect runtime_root_held reprovision confined "a fresh root in place of the link"
expect runtime_root_held refuse refused "a runtime root that is a link"
expect write_root_swapper byname escaped "appends by name through the flipping link"
expect write_root_swapper refuse refused "a write root that is a link"

# the sweep's power, stated from the windows the model reported: the
# pinned runner opens the write root once, the byname one twice
power() { sqlite3 "$tmp/out/linux.sqlite" "select attempts || ':' || windows_hit from result where scenario_id = 'swap.junction_write_root_held' and runner = 'jmodel_$1'"; }
for p in byname:2:2 pinned:1:1; do
	got=$(power "${p%%:*}")
	if [ "$got" = "${p#*:}" ]; then
		ok "swap.junction_write_root_held over ${p%%:*}: windows (attempts:hit) $got"
	else
		notok "swap.junction_write_root_held over ${p%%:*}: windows (attempts:hit) expected ${p#*:}, got '$got'"
	fi
done
tap_end "$tmp/run.err"
