#!/bin/sh
# test_win_ui.sh SANDPROOF - the Windows-only priv.win_ui_* scenarios
# (the clipboard and SendInput under the job's UI restrictions, PRIV-5) run
# on Linux, where their expectations say unsupported, through
# winmodel/winui.lua: a model of what the Windows probe's UI operations
# answer.  Their copies expect "denied" on Linux; the runners are adapters
# over none (the control write really runs) with the model's modes.  It
# shows each scenario judges what it claims:
#   - mode open (nothing restricts the session): the clipboard is
#     "written", SendInput "injected" - the scenarios can fail;
#   - mode restricted (every call ERROR_ACCESS_DENIED, as the job and the
#     run's own desktop should make it): both "denied";
#   - mode silent (SendInput inserts nothing and says nothing; the clipboard
#     refused for another reason): not denied, a reporting failure
#     (errno_EIO, errno_EBUSY), never a pass.
# Never a Windows result: only the native CI leg says what Windows answers.
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp winui

mkdir -p "$tmp/sc/priv"
for f in "$here"/../../scenarios/priv/win_ui_*.lua; do
	sc_copy_expecting "$f" "$tmp/sc/priv/$(basename "$f")" '"denied"'
done
sc_harness "$tmp/h" "$here/../runners/none.lua" "$here/winmodel/winui.lua"
for m in open restricted silent; do
	printf 'return require("winui").adapter("winui_%s", require("none"), "%s")\n' "$m" "$m" \
		>"$tmp/h/runners/winui_$m.lua"
done
env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/sc" \
	"$sp" run --runner winui_open,winui_restricted,winui_silent --out "$tmp/out" \
	>"$tmp/run.log" 2>"$tmp/run.err"

expect() { sc_expect "$tmp/run.log" "priv.win_ui_$1" "$2" "$3" "$4"; } # SCENARIO RUNNER OUTCOME WHY
expect clipboard winui_open written "an open clipboard is written"
expect sendinput winui_open injected "an open input queue takes the event"
expect clipboard winui_restricted denied "both clipboard calls ERROR_ACCESS_DENIED"
expect sendinput winui_restricted denied "SendInput ERROR_ACCESS_DENIED"
expect clipboard winui_silent errno_EBUSY "refused, but not as a denial"
expect sendinput winui_silent errno_EIO "nothing inserted, nothing said"
tap_end "$tmp/run.err"
