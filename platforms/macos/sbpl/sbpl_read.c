/* sbpl_read.c - the s-expression reader under the SBPL model (sbpl_read.h).
 *
 * Recursive descent over the text, at most SBPL_READ_DEPTH lists deep (a
 * profile is a few levels deep; a deeper text is refused rather than let
 * it run the stack out). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_read.h"

#define SBPL_READ_DEPTH 64

struct rd {
	const char *s;
	size_t i;
	char *err;
};

void sbpl_read_where(const char *text, size_t pos, char *buf, size_t len)
{
	size_t line = 1, col = 1, k;

	for (k = 0; k < pos && text[k]; k++) {
		if (text[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, len, "line %zu col %zu (byte %zu)", line, col, pos);
}

static int rd_fail(struct rd *r, size_t pos, const char *what)
{
	char where[96];

	sbpl_read_where(r->s, pos, where, sizeof(where));
	snprintf(r->err, SBPL_ERR_MAX, "%s: %s", where, what);
	return -EINVAL;
}

static void rd_skip_space(struct rd *r)
{
	for (;;) {
		char c = r->s[r->i];

		if (c == ';') {
			while (r->s[r->i] && r->s[r->i] != '\n')
				r->i++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			r->i++;
		} else {
			return;
		}
	}
}

/* A string body from r->i (just past the opening quote) to its closing
 * quote, unescaped into a new buffer; raw (a #"..." regex literal): every
 * byte as written, a backslash and what follows it included, for the
 * regex engine to read. */
static int rd_string(struct rd *r, struct sbpl_node *n, int raw)
{
	size_t start = r->i, k = 0, end = start;
	char *out;

	/* the body is at most as long as the text up to the closing quote */
	while (r->s[end] && r->s[end] != '"')
		end += (r->s[end] == '\\' && r->s[end + 1]) ? 2 : 1;
	if (!(out = malloc(end - start + 1)))
		return -ENOMEM;
	for (;;) {
		char c = r->s[r->i];

		if (!c) {
			free(out);
			return rd_fail(r, n->pos, "string not closed");
		}
		r->i++;
		if (c == '"')
			break;
		if (c == '\\' && raw) {
			out[k++] = c;
			if (!(c = r->s[r->i]))
				continue;
			r->i++;
		} else if (c == '\\') {
			char e = r->s[r->i++];

			if (e == '\\' || e == '"')
				c = e;
			else if (e == 'n')
				c = '\n';
			else if (e == 't')
				c = '\t';
			else {
				free(out);
				return rd_fail(r, r->i - 2, "unknown escape in string");
			}
		}
		out[k++] = c;
	}
	out[k] = '\0';
	n->text = out;
	return 0;
}

static int sym_char(char c)
{
	return c && !strchr(" \t\r\n();\"", c);
}

/* A symbol, an integer (all digits, optional leading '-'), #t or #f. */
static int rd_atom(struct rd *r, struct sbpl_node *n)
{
	size_t start = r->i, len;
	char *end;

	while (sym_char(r->s[r->i]))
		r->i++;
	len = r->i - start;
	if (!(n->text = strndup(r->s + start, len)))
		return -ENOMEM;
	if (n->text[0] == '#') {
		if (strcmp(n->text, "#t") && strcmp(n->text, "#f"))
			return rd_fail(r, start, "unknown # syntax");
		n->kind = SBPL_NODE_BOOL;
		n->num = n->text[1] == 't';
		return 0;
	}
	if (strspn(n->text + (n->text[0] == '-'), "0123456789") == len - (n->text[0] == '-') &&
	    len > (size_t)(n->text[0] == '-')) {
		errno = 0;
		n->num = strtoll(n->text, &end, 10);
		if (errno || *end)
			return rd_fail(r, start, "integer out of range");
		n->kind = SBPL_NODE_INT;
		return 0;
	}
	n->kind = SBPL_NODE_SYMBOL;
	return 0;
}

static int rd_node(struct rd *r, struct sbpl_node *n, int depth);

/* Append one node to list l (grows kids). */
static int rd_push(struct sbpl_node *l, struct sbpl_node **slot)
{
	struct sbpl_node *k = realloc(l->kids, (l->n_kids + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	l->kids = k;
	*slot = &k[l->n_kids++];
	memset(*slot, 0, sizeof(**slot));
	return 0;
}

/* The items of a list until close (')' or, at top level, the end). */
static int rd_items(struct rd *r, struct sbpl_node *l, int depth, int top)
{
	struct sbpl_node *k;
	int rc;

	for (;;) {
		rd_skip_space(r);
		if (!r->s[r->i])
			return top ? 0 : rd_fail(r, l->pos, "list not closed");
		if (r->s[r->i] == ')') {
			if (top)
				return rd_fail(r, r->i, "unbalanced ')'");
			r->i++;
			return 0;
		}
		if ((rc = rd_push(l, &k)) < 0 || (rc = rd_node(r, k, depth)) < 0)
			return rc;
	}
}

static int rd_node(struct rd *r, struct sbpl_node *n, int depth)
{
	char c = r->s[r->i];

	n->pos = r->i;
	if (c == '(') {
		if (depth >= SBPL_READ_DEPTH)
			return rd_fail(r, r->i, "lists nested too deep");
		r->i++;
		n->kind = SBPL_NODE_LIST;
		return rd_items(r, n, depth + 1, 0);
	}
	if (c == '"') {
		r->i++;
		n->kind = SBPL_NODE_STRING;
		return rd_string(r, n, 0);
	}
	if (c == '#' && r->s[r->i + 1] == '"') {
		r->i += 2;
		n->kind = SBPL_NODE_REGEX;
		return rd_string(r, n, 1);
	}
	if (c == '\'' || c == '`' || c == ',')
		return rd_fail(r, r->i, "quote syntax is not part of the profile subset");
	return rd_atom(r, n);
}

int sbpl_read_text(const char *text, struct sbpl_node *top, char err[SBPL_ERR_MAX])
{
	struct rd r = {text, 0, err};
	int rc;

	memset(top, 0, sizeof(*top));
	top->kind = SBPL_NODE_LIST;
	err[0] = '\0';
	rc = rd_items(&r, top, 0, 1);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, SBPL_ERR_MAX, "out of memory");
		sbpl_read_free(top);
	}
	return rc;
}

void sbpl_read_free(struct sbpl_node *n)
{
	size_t k;

	if (!n)
		return;
	for (k = 0; k < n->n_kids; k++)
		sbpl_read_free(&n->kids[k]);
	free(n->kids);
	free(n->text);
	memset(n, 0, sizeof(*n));
}
