#!/bin/sh
# ci/win-token-check.sh - judge the token a command gets inside the Windows
# sandbox, from `whoami /groups /priv /fo csv` run there (issue 32 §2; the
# native leg of .github/workflows/sandproof.yml runs it, elevated).
#
#   sh ci/win-token-check.sh OUTCOME.json [LABEL]
#
# OUTCOME.json is sandproof-ref run's outcome for a request whose command is
# whoami.exe /groups /priv /fo csv.  The recipe (platforms/windows/plan,
# winplan_token_recipe): every group deny-only but Everyone, Users and the
# logon SID; every privilege but SeChangeNotifyPrivilege deleted; integrity
# medium.  Fails (exit 1, one "::error::" line each) when
#   - the run did not complete with exit 0, or no group row, no Everyone row
#     or no privilege row was read (nothing would have been checked);
#   - an administrative group is enabled (Administrators S-1-5-32-544, "Local
#     account and member of Administrators" S-1-5-114, Backup, Server,
#     Account, Print Operators, Power Users, Hyper-V and Remote Management
#     admins...);
#   - any other group is enabled that the recipe makes deny-only;
#   - a privilege other than SeChangeNotifyPrivilege is held (enabled or not:
#     a process may enable what it holds);
#   - the integrity label is not medium (S-1-16-8192).
# Rows are read by shape, not position: a CSV row of four fields whose third
# is a SID is a group, of three whose first is Se...Privilege a privilege.
# The attribute words are English ("Enabled group"), as on GitHub's runners.
# Exit 0 holds, 1 fails, 2 usage or no jq.
set -eu

[ $# -ge 1 ] || { echo "usage: win-token-check.sh OUTCOME.json [LABEL]" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || { echo "win-token-check.sh: jq not found" >&2; exit 2; }
label=${2:-sandbox}
state=$(jq -r '.state // "none"' "$1")
code=$(jq -r '.exit.code // "null"' "$1")
if [ "$state" != completed ] || [ "$code" != 0 ]; then
	echo "::error::$label: whoami did not run to exit 0 inside the sandbox (state $state, exit $code): nothing was checked"
	jq -c '{state, kind, setup_error, stderr}' "$1" 2>/dev/null || true
	exit 1
fi
jq -r '.stdout // ""' "$1" | tr -d '\r' | awk -v label="$label" '
function fields(line, out,    n) {
	if (line !~ /^".*"$/)
		return 0
	line = substr(line, 2, length(line) - 2)
	return split(line, out, /","/)
}
BEGIN {
	admin["S-1-5-32-544"] = "Administrators"
	admin["S-1-5-114"] = "Local account and member of Administrators group"
	admin["S-1-5-32-547"] = "Power Users"
	admin["S-1-5-32-548"] = "Account Operators"
	admin["S-1-5-32-549"] = "Server Operators"
	admin["S-1-5-32-550"] = "Print Operators"
	admin["S-1-5-32-551"] = "Backup Operators"
	admin["S-1-5-32-552"] = "Replicator"
	admin["S-1-5-32-569"] = "Cryptographic Operators"
	admin["S-1-5-32-573"] = "Event Log Readers"
	admin["S-1-5-32-578"] = "Hyper-V Administrators"
	admin["S-1-5-32-580"] = "Remote Management Users"
	keep["S-1-1-0"] = 1
	keep["S-1-5-32-545"] = 1
	bad = 0
}
{
	n = fields($0, f)
	if (n == 4 && f[3] ~ /^S-1-/) {
		groups++
		sid = f[3]
		if (sid == "S-1-1-0")
			everyone = 1
		if (sid ~ /^S-1-16-/) {
			label_sid = sid
			next
		}
		if (f[4] !~ /Enabled group/)
			next
		if (sid in admin) {
			printf "::error::%s: an administrative group is enabled: %s (%s), attributes \"%s\"\n", label, f[1], sid, f[4]
			bad = 1
		} else if (!(sid in keep) && sid !~ /^S-1-5-5-/) {
			printf "::error::%s: a group the recipe makes deny-only is enabled: %s (%s)\n", label, f[1], sid
			bad = 1
		}
	} else if (n == 3 && f[1] ~ /^Se[A-Za-z]*Privilege$/) {
		privs++
		if (f[1] != "SeChangeNotifyPrivilege") {
			printf "::error::%s: a privilege the recipe deletes is held: %s (%s)\n", label, f[1], f[3]
			bad = 1
		}
	}
}
END {
	if (!groups || !everyone || !privs) {
		printf "::error::%s: whoami printed %d group rows (Everyone %s) and %d privilege rows: nothing to check\n", label, groups, everyone ? "seen" : "not seen", privs
		exit 1
	}
	if (label_sid != "S-1-16-8192") {
		printf "::error::%s: the integrity label is %s, not medium (S-1-16-8192)\n", label, label_sid == "" ? "absent" : label_sid
		bad = 1
	}
	if (!bad)
		printf "%s: %d groups, %d privileges: no administrative or other recipe-disabled group enabled, only SeChangeNotifyPrivilege held, integrity medium\n", label, groups, privs
	exit bad
}'
