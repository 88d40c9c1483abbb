/* strv.h - a NULL-terminated, owned vector of strings.  Header-only: it is
 * part of the types the seam shares (request.h), so the platform layer can
 * use it without calling into the runner core. */
#ifndef SANDPROOF_STRV_H
#define SANDPROOF_STRV_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct strv {
	char **v; /* v[n] == NULL once anything was pushed */
	size_t n;
	size_t cap; /* slots of v (0: v is not ours to grow, or NULL) */
};

/* Growth doubles, so pushing n strings costs O(n) copies (a request may
 * hold 262 144 arguments). */
static inline int strv_push(struct strv *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		char **nv = (char **)realloc(sv->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sv->v = nv;
		sv->cap = cap;
	}
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->v[++sv->n] = NULL;
	return 0;
}

static inline void strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
	sv->cap = 0;
}

#endif
