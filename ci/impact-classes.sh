#!/bin/sh
# ci/impact-classes.sh SANDPROOF [--check] - the reviewed table "Impact
# classes of the scenarios" of docs/CONTRACT.md against the scenarios'
# `impact` tables (`sandproof list --impact`).
#   without --check: print the table's rows as the scenarios give them (the
#     "why" column empty), to review against the definitions and paste by
#     hand: this script never writes the document, so every class in it was
#     put there by someone who read it;
#   --check: exit 1 naming each scenario whose row disagrees with its
#     `impact` (an outcome key in another class, one missing or extra), each
#     scenario without a row and each row without a scenario.
set -eu
export LC_ALL=C
sp=$1
mode=${2:-print}
here=$(cd "$(dirname "$0")/.." && pwd)
doc=$here/docs/CONTRACT.md
section='## Impact classes of the scenarios'
classes='escape exposure hardening reporting fidelity residue'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# id<TAB>escape keys<TAB>...<TAB>residue keys, keys joined by ", "
"$sp" list --impact | awk -F'\t' -v classes="$classes" '
	{
		n = split(classes, c, " ")
		for (i = 1; i <= n; i++) k[c[i]] = ""
		m = split($2, part, "; ")
		for (i = 1; i <= m; i++) {
			p = index(part[i], ": ")
			if (p) k[substr(part[i], 1, p - 1)] = substr(part[i], p + 2)
		}
		line = $1
		for (i = 1; i <= n; i++) line = line "\t" k[c[i]]
		print line
	}' | sort >"$tmp/scenarios"

if [ "$mode" != --check ]; then
	awk -F'\t' '{
		printf "| `%s` |", $1
		for (i = 2; i <= 7; i++) {
			n = split($i, key, ", ")
			cell = ""
			for (j = 1; j <= n; j++) cell = cell (j > 1 ? ", " : "") "`" key[j] "`"
			printf "%s|", cell == "" ? " " : " " cell " "
		}
		print " |"
	}' "$tmp/scenarios"
	exit 0
fi

# the document's rows, normalised the same way (backticks and padding off)
awk -v s="$section" '
	$0 == s { on = 1; next }
	on && /^## / { exit }
	on && /^\| `/ {
		n = split($0, cell, "|")
		line = ""
		for (i = 2; i <= 8; i++) {
			v = cell[i]
			gsub(/`/, "", v)
			gsub(/^ +| +$/, "", v)
			line = line (i > 2 ? "\t" : "") v
		}
		print line
	}' "$doc" | sort >"$tmp/doc"
if [ ! -s "$tmp/doc" ]; then
	echo "docs/CONTRACT.md: no rows under \"$section\"" >&2
	exit 1
fi
status=0
dup=$(cut -f1 "$tmp/doc" | uniq -d | tr '\n' ' ')
if [ -n "$dup" ]; then
	echo "docs/CONTRACT.md: scenarios with more than one row: $dup" >&2
	status=1
fi
# every difference, by scenario: its row against its impact table
awk -F'\t' -v s="$section" -v classes="$classes" '
	function cells(line,   n, f, i, out) {
		n = split(line, f, "\t")
		out = ""
		for (i = 2; i <= 7; i++)
			if (f[i] != "") out = out (out == "" ? "" : "; ") c[i - 1] ": " f[i]
		return out == "" ? "(none)" : out
	}
	BEGIN { split(classes, c, " ") }
	NR == FNR { doc[$1] = $0; next }
	{
		seen[$1] = 1
		if (!($1 in doc)) { print $1 ": no row in docs/CONTRACT.md \"" s "\" (its impact: " cells($0) ")"; bad = 1 }
		else if (doc[$1] != $0) { print $1 ": the row says " cells(doc[$1]) "; the scenario says " cells($0); bad = 1 }
	}
	END {
		for (id in doc) if (!(id in seen)) { print id ": a row in docs/CONTRACT.md \"" s "\" for no scenario"; bad = 1 }
		exit bad
	}' "$tmp/doc" "$tmp/scenarios" >&2 || status=1
if [ "$status" -ne 0 ]; then
	echo "review the classes (docs/CONTRACT.md \"Impact classes\"), then fix the scenario or the row" \
		"(sh ci/impact-classes.sh $sp prints the rows the scenarios give)" >&2
fi
exit "$status"
