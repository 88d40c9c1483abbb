# help-to-man.awk - a program's --help text (stdin) into its man page
# (stdout, man(7) macros); docs/man/README.md says why --help is the one
# source.  POSIX awk; run by cmake/manpage.cmake at build time.
#   awk -f help-to-man.awk -v prog=NAME -v version=TEXT -v summary=TEXT \
#       -v see_also="a(1), b(1)"
# The help's layout, as both programs write it:
#   - the first paragraph (blank-line separated) starts "usage: " and is the
#     SYNOPSIS, kept line for line;
#   - an item paragraph: its first line is "WORD  text" at column 0 and its
#     next line is indented (or it is one line with two spaces after WORD);
#     every line at column 0 starts an item (.TP, WORD in bold), the lines
#     that continue its text (continues(), below) are filled, any other
#     indented line (an option table, an exit status table) is kept as it
#     is (.nf);
#   - any other paragraph is filled text, its indented lines kept as they are.
# Every word of the help reaches the page in its order (docs/man/tests
# checks it through man -l).
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}
function indent(s) {
	match(s, /^ */)
	return RLENGTH
}
function fill_end() {
	if (pre) {
		print ".fi"
		pre = 0
	}
}
function verbatim(s) {
	if (!pre) {
		print ".nf"
		pre = 1
	}
	print esc(s)
}
function filled(s) {
	fill_end()
	sub(/^ +/, "", s)
	print esc(s)
}
function synopsis(    i, s) {
	print ".SH SYNOPSIS"
	print ".nf"
	for (i = 1; i <= n; i++) {
		s = line[i]
		if (i == 1)
			sub(/^usage: /, "", s)
		else
			s = substr(s, 8)
		print esc(s)
	}
	print ".fi"
}
function item_para() {
	if (line[1] !~ /^[^ ]+ +[^ ]/)
		return 0
	if (n == 1)
		return line[1] ~ /^[^ ]+  +[^ ]/
	return indent(line[2]) >= 2
}
# A continuation of an item's text: indented at least 5 and no further
# than the text on the item's first line (textcol), and no run of three
# spaces (a table's columns) after its indentation.
function continues(s, textcol) {
	return indent(s) >= 5 && indent(s) <= textcol && substr(s, indent(s) + 1) !~ /   /
}
function items(    i, s, tag, textcol) {
	for (i = 1; i <= n; i++) {
		s = line[i]
		if (indent(s) == 0) {
			fill_end()
			tag = s
			sub(/ .*/, "", tag)
			s = substr(s, length(tag) + 1)
			textcol = length(tag) + indent(s)
			print ".TP"
			print ".B " esc(tag)
			filled(s)
		} else if (continues(s, textcol)) {
			filled(s)
		} else {
			verbatim(s)
		}
	}
	fill_end()
}
function plain(    i) {
	print ".PP"
	for (i = 1; i <= n; i++)
		if (indent(line[i]) == 0)
			filled(line[i])
		else
			verbatim(line[i])
	fill_end()
}
function paragraph() {
	if (n == 0)
		return
	if (!described && line[1] ~ /^usage: /) {
		synopsis()
	} else {
		if (!described++)
			print ".SH DESCRIPTION"
		if (item_para())
			items()
		else
			plain()
	}
	n = 0
}
BEGIN {
	up = toupper(prog)
	print ".\\\" Generated from `" prog " --help` by docs/man/help-to-man.awk: edit the help, not this."
	print ".TH " esc(up) " 1 \"\" \"" esc(version) "\" \"User Commands\""
	print ".nh"
	print ".ad l"
	print ".SH NAME"
	print esc(prog) " \\- " esc(summary)
	n = 0
	pre = 0
	described = 0
}
/^[ \t]*$/ {
	paragraph()
	next
}
{
	line[++n] = $0
}
END {
	paragraph()
	if (see_also != "") {
		print ".SH SEE ALSO"
		print esc(see_also)
	}
}
