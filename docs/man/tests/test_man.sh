#!/bin/sh
# test_man.sh MANDIR SANDPROOF SANDPROOF_REF - the man pages the build made
# (cmake/install.cmake, from each program's --help through
# docs/man/help-to-man.awk), checked through man -l:
#   - each renders with no warning from man or groff (man-db's --warnings);
#   - NAME says "PROG - summary", with SYNOPSIS, DESCRIPTION and SEE ALSO;
#   - every word of `PROG --help` is in the page, in its order, and nothing
#     else is: the page says what the program says, no more, no less.
# Exit 0 all held, 1 otherwise.
set -u
mandir=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../harness/tests/sc_lib.sh"
sc_tmp man || exit 1

# man-db checks groff's warnings with --warnings; mandoc (macOS) has no
# such flag and is run plainly.
printf '.TH T 1\n.SH NAME\nt \\- t\n' >"$tmp/t.1"
warn=--warnings
man $warn -l "$tmp/t.1" >/dev/null 2>&1 || warn=
render() { # page -> plain text on stdout, warnings on stderr
	if command -v col >/dev/null 2>&1; then
		LC_ALL=C MANWIDTH=80 MANPAGER=cat PAGER=cat man $warn -l "$1" | col -bx
	else
		LC_ALL=C MANWIDTH=80 MANPAGER=cat PAGER=cat man $warn -l "$1"
	fi
}
words() { tr -s ' \t' '\n\n' | sed '/^$/d'; }

for exe in "$@"; do
	prog=$(basename "$exe")
	page=$mandir/$prog.1
	if [ ! -s "$page" ]; then
		notok "$prog(1): $page was not generated"
		continue
	fi
	render "$page" >"$tmp/$prog.txt" 2>"$tmp/$prog.err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/$prog.err" ] && [ -s "$tmp/$prog.txt" ]; then
		ok "$prog(1) renders through man -l ${warn:-(mandoc)} with no warning"
	else
		notok "$prog(1) renders through man -l with no warning (exit $rc): $(head -5 "$tmp/$prog.err")"
	fi
	for h in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -q "^$h\$" "$tmp/$prog.txt" || notok "$prog(1) has no $h section"
	done
	if sed -n '/^NAME$/,/^SYNOPSIS$/p' "$tmp/$prog.txt" | grep -q "^ *$prog - [a-z]"; then
		ok "$prog(1): NAME says \"$prog - ...\""
	else
		notok "$prog(1): NAME does not say \"$prog - ...\""
	fi
	"$exe" --help | sed '1s/^usage: //' | words >"$tmp/$prog.help"
	awk '/^SYNOPSIS$/ { on = 1; next } /^SEE ALSO$/ { on = 0 } /^DESCRIPTION$/ { next } on' \
		"$tmp/$prog.txt" | words >"$tmp/$prog.page"
	if [ "$(wc -l <"$tmp/$prog.help")" -gt 50 ] && cmp -s "$tmp/$prog.help" "$tmp/$prog.page"; then
		ok "$prog(1) holds every word of $prog --help in its order ($(wc -l <"$tmp/$prog.help") words), nothing else"
	else
		notok "$prog(1) and $prog --help differ: $(diff "$tmp/$prog.help" "$tmp/$prog.page" | head -8 | tr '\n' ' ')"
	fi
done
tap_end
