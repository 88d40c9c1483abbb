/* sbpl_variants.c - other spellings of a guarded path (sbpl_variants.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_variants.h"

#define KEY_MAX 1100

/* Keep s (owned) when the volume takes it to be path and it is new. */
static void add(struct variants *out, const struct namefold_index *ix, const char *path, char *s)
{
	if (!s)
		return;
	if (!strcmp(s, path) || !namefold_same(s, path, namefold_index_flags(ix))) {
		free(s);
		return;
	}
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i], s)) {
			free(s);
			return;
		}
	if (out->n == VARIANTS_MAX) {
		out->dropped++;
		free(s);
		return;
	}
	out->v[out->n++] = s;
}

/* path with bytes [from, to) mapped by f. */
static char *mapped(const char *path, size_t from, size_t to, int (*f)(int))
{
	char *s = strdup(path);

	for (size_t i = from; s && i < to; i++)
		s[i] = (char)f((unsigned char)s[i]);
	return s;
}

static int toggle(int c)
{
	return isupper(c) ? tolower(c) : toupper(c);
}

/* The last component spelled from its key, key[i..i+len) spelled u. */
static char *spelled(const char *path, size_t last, const uint32_t *key, size_t n, size_t i,
		     size_t len, uint32_t u)
{
	char *s = malloc(last + 4 * n + 5), *w;

	if (!s)
		return NULL;
	memcpy(s, path, last);
	w = s + last;
	for (size_t k = 0; k < n; k++) {
		if (k == i)
			w += namefold_utf8_encode(u, w);
		if (k < i || k >= i + len)
			w += namefold_utf8_encode(key[k], w);
	}
	*w = '\0';
	return s;
}

/* Every other code point for every span of the last component's key. */
static void by_units(struct variants *out, const struct namefold_index *ix, const char *path,
		     size_t last)
{
	uint32_t key[KEY_MAX], units[64];
	size_t n;

	if (namefold_key(path + last, namefold_index_flags(ix), key, KEY_MAX, &n) < 0)
		return;
	add(out, ix, path, spelled(path, last, key, n, n, 0, 0));
	for (size_t i = 0; i < n; i++)
		for (size_t len = 1; len <= NAMEFOLD_UNIT_MAX && i + len <= n; len++) {
			size_t m = namefold_units(ix, &key[i], len, units, 64);

			for (size_t u = 0; u < m && u < 64; u++)
				add(out, ix, path, spelled(path, last, key, n, i, len, units[u]));
		}
}

int variants_of(const struct namefold_index *ix, const char *path, struct variants *out)
{
	const char *slash = strrchr(path, '/');
	size_t len = strlen(path), last = slash ? (size_t)(slash - path) + 1 : 0;

	memset(out, 0, sizeof(*out));
	add(out, ix, path, mapped(path, 0, len, toupper));
	add(out, ix, path, mapped(path, 0, len, tolower));
	add(out, ix, path, mapped(path, last, len, toupper));
	add(out, ix, path, mapped(path, last, len, tolower));
	for (size_t i = last; i < len; i++)
		if (isalpha((unsigned char)path[i]))
			add(out, ix, path, mapped(path, i, i + 1, toggle));
	by_units(out, ix, path, last);
	return 0;
}

void variants_free(struct variants *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	memset(v, 0, sizeof(*v));
}
