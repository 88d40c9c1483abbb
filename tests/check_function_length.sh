#!/bin/sh
# tests/check_function_length.sh SOURCE_DIR
#
# The style rule "no function over ~80 lines" (DESIGN.md, issue 13.6) as a
# check that can fail: every C function in ref/, platforms/, harness/,
# reports/ and util/ whose body (the lines between its braces) is longer
# than 80 lines is named, and the check exits 1, unless the allowlist below
# names it with its reason.
#
# How a function is found: the code is kernel style, so a function body
# opens with `{` in column 0 and closes with `}` in column 0 (a struct or
# an initializer never opens with `{` alone in column 0); the function's
# name is the first `identifier(` in the lines just before the `{`.
#
# Exempt: test code (any file under a tests/ directory, and the top-level
# tests/).  A test is a script of checks read top to bottom, one check
# after the other; cutting it into steps adds calls without a contract.
# The rule is for the code under test.
#
# So that a parser that finds nothing cannot pass, the check fails when it
# sees fewer than MIN_FUNCTIONS functions.
# Exit 0 when the rule holds, 1 otherwise (naming each function), 2 usage.
set -eu
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 SOURCE_DIR" >&2; exit 2; }
cd "$1"
MAX_LINES=80
MIN_FUNCTIONS=500

# path:function, then the reason it stays long (one entry a line).
allowlist='
'

files=$(find ref platforms harness reports util -name '*.[ch]' -not -path '*/tests/*' | sort)
[ -n "$files" ] || { echo "$0: no C file under $1" >&2; exit 2; }
# shellcheck disable=SC2086 # the file names have no blanks
awk -v max="$MAX_LINES" -v min="$MIN_FUNCTIONS" -v allow="$allowlist" '
BEGIN {
	n = split(allow, lines, "\n")
	for (i = 1; i <= n; i++)
		if (lines[i] != "") {
			split(lines[i], f, " ")
			allowed[f[1]] = 1
		}
}
# The first identifier followed by "(" outside an __attribute__((...)).
function head_name(h,    name, i, depth) {
	while (match(h, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(h, RSTART, RLENGTH - 1)
		sub(/[ \t]+$/, "", name)
		h = substr(h, RSTART + RLENGTH)
		if (name != "__attribute__")
			return name
		depth = 1
		for (i = 1; depth > 0 && i <= length(h); i++)
			depth += (substr(h, i, 1) == "(") - (substr(h, i, 1) == ")")
		h = substr(h, i)
	}
	return "?"
}
FNR == 1 { head = ""; start = 0 }
/^\{/ { name = head_name(head); start = FNR; head = ""; next }
/^\}/ {
	if (start) {
		len = FNR - start - 1
		functions++
		key = FILENAME ":" name
		if (len > max && !(key in allowed)) {
			printf "%s:%d: %s is %d lines (limit %d)\n", FILENAME, start, name, len, max
			over++
		}
		seen[key] = 1
	}
	start = 0; head = ""; next
}
start { next }
# outside a body: the lines that may be the next function head
/^[ \t]*$/ || /^#/ || /;[ \t]*$/ || /\*\/[ \t]*$/ { head = ""; next }
{ head = head " " $0 }
END {
	for (key in allowed)
		if (!(key in seen)) {
			printf "allowlist: %s names no function (remove the entry)\n", key
			over++
		}
	if (functions < min) {
		printf "only %d functions found (expected at least %d): is the parser broken?\n", functions, min
		exit 1
	}
	printf "%d functions checked, %d over %d lines\n", functions, over + 0, max
	exit over ? 1 : 0
}' $files
