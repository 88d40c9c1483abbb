/* sbpl_text.c - the generator's text buffer, SBPL quoting and the lint.
 *
 * The lint reads SBPL as Seatbelt's reader does at the level that matters
 * for refusing a profile before sandbox-exec sees it: comments (';' to the
 * end of the line), string literals ("..." with '\\' escapes, and #"..."
 * regex literals), and parentheses.  It does not evaluate anything. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_int.h"

static void buf_reserve(struct sbpl_buf *b, size_t more)
{
	size_t cap;
	char *ns;

	if (b->err)
		return;
	if (b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	ns = realloc(b->s, cap);
	if (!ns) {
		b->err = -ENOMEM;
		return;
	}
	b->s = ns;
	b->cap = cap;
}

void sbpl_buf_add(struct sbpl_buf *b, const char *s)
{
	size_t n = strlen(s);

	buf_reserve(b, n);
	if (b->err)
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void sbpl_buf_addf(struct sbpl_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (!b->err)
			b->err = -EINVAL;
		return;
	}
	buf_reserve(b, (size_t)n);
	if (b->err)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbpl_buf_quoted(struct sbpl_buf *b, const char *s)
{
	buf_reserve(b, 2 * strlen(s) + 2);
	if (b->err)
		return;
	b->s[b->len++] = '"';
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			b->s[b->len++] = '\\';
		b->s[b->len++] = *s;
	}
	b->s[b->len++] = '"';
	b->s[b->len] = '\0';
}

void sbpl_buf_free(struct sbpl_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

int sbpl_fail(char *err, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, SBPL_ERR_MAX, fmt, ap);
	va_end(ap);
	return rc;
}

/* One string literal starting at *p (just past its opening quote); on
 * return *p is just past the closing quote.  0, or -EINVAL (unterminated,
 * or more than SBPL_LITERAL_MAX bytes once escapes are read). */
static int lint_string(const char **p, int line, char *err)
{
	const char *s = *p;
	size_t n = 0;

	for (; *s && *s != '"'; s++, n++)
		if (*s == '\\' && *++s == '\0')
			break;
	if (*s != '"')
		return sbpl_fail(err, -EINVAL, "line %d: unterminated string literal", line);
	if (n > SBPL_LITERAL_MAX)
		return sbpl_fail(err, -EINVAL,
				 "line %d: a string literal of %zu bytes: Seatbelt refuses the "
				 "whole profile over %d", line, n, SBPL_LITERAL_MAX);
	*p = s + 1;
	return 0;
}

int sbpl_lint(const char *text, char err[SBPL_ERR_MAX])
{
	const char *p = text;
	long depth = 0;
	int line = 1, rc;

	while (*p) {
		char c = *p++;

		if (c == '\n') {
			line++;
		} else if (c == ';') {
			while (*p && *p != '\n')
				p++;
		} else if (c == '"' || (c == '#' && *p == '"')) {
			p += c == '#';
			rc = lint_string(&p, line, err);
			if (rc)
				return rc;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth < 0) {
			return sbpl_fail(err, -EINVAL, "line %d: ')' closes nothing", line);
		}
	}
	if (depth > 0)
		return sbpl_fail(err, -EINVAL, "%ld unclosed '(' at the end of the profile",
				 depth);
	return 0;
}
