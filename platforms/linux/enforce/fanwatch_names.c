/* fanwatch_names.c - the names one directory is looked at by in the
 * comparison (fanwatch_int.h): those events named, those on the way to
 * events below, or every name of both sides; and string vectors. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanwatch_int.h"

int fw_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int fw_names_grow(struct fw_names *n)
{
	size_t cap = n->cap ? n->cap * 2 : 64;
	const char **v;
	size_t *off;

	if (n->n < n->cap)
		return 0;
	if (!(v = realloc(n->v, cap * sizeof(*v))))
		return -ENOMEM;
	n->v = v;
	if (!(off = realloc(n->off, cap * sizeof(*off))))
		return -ENOMEM;
	n->off = off;
	n->cap = cap;
	return 0;
}

int fw_names_add(struct fw_names *n, const char *s)
{
	if (fw_names_grow(n) < 0)
		return -ENOMEM;
	n->v[n->n] = s;
	n->off[n->n++] = SIZE_MAX;
	return 0;
}

static int fw_names_copy(struct fw_names *n, const char *s, size_t len)
{
	if (fw_names_grow(n) < 0)
		return -ENOMEM;
	if (n->text_len + len + 1 > n->text_cap) {
		size_t cap = n->text_cap ? n->text_cap * 2 : 4096;
		char *t;

		while (cap < n->text_len + len + 1)
			cap *= 2;
		if (!(t = realloc(n->text, cap)))
			return -ENOMEM;
		n->text = t;
		n->text_cap = cap;
	}
	memcpy(n->text + n->text_len, s, len);
	n->text[n->text_len + len] = '\0';
	n->v[n->n] = NULL;
	n->off[n->n++] = n->text_len;
	n->text_len += len + 1;
	return 0;
}

void fw_names_free(struct fw_names *n)
{
	free(n->v);
	free(n->off);
	free(n->text);
}

/* Every pointer set, sorted, each name once. */
void fw_names_unique(struct fw_names *n)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n; i++)
		if (n->off[i] != SIZE_MAX)
			n->v[i] = n->text + n->off[i];
	if (n->n)
		qsort(n->v, n->n, sizeof(*n->v), fw_strcmp);
	for (size_t i = 0; i < n->n; i++)
		if (!k || strcmp(n->v[k - 1], n->v[i]))
			n->v[k++] = n->v[i];
	n->n = k;
}

/* Every entry of the directory fd (not consumed). */
int fw_names_list(struct fw_names *n, int fd)
{
	int c = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	DIR *dir;
	struct dirent *de;

	if (c < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!(dir = fdopendir(c))) {
		close(c);
		return -errno;
	}
	while (rc == 0 && (errno = 0, de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rc = fw_names_copy(n, de->d_name, strlen(de->d_name));
	if (rc == 0 && errno)
		rc = -errno;
	closedir(dir);
	return rc;
}

/* The names of a's slots (events named them). */
int fw_names_slots(struct fw_diff *d, struct fw_names *n, uint32_t a)
{
	const struct fw_dir *dir = fw_dirp(d->w, a);
	int rc = 0;

	for (uint32_t s = dir ? dir->slots : FW_NONE; rc == 0 && s != FW_NONE; s = d->w->slots[s].dnext)
		rc = fw_names_add(n, fw_name(d->w, d->w->slots[s].name_off));
	return rc;
}

/* The next component of every route below rel (the path under the root,
 * "" for the root itself). */
int fw_names_routes(struct fw_diff *d, struct fw_names *n, const char *rel)
{
	size_t l = strlen(rel), lo = 0, hi = d->n_routes;
	int rc = 0;

	while (lo < hi) { /* the first route not before rel */
		size_t mid = (lo + hi) / 2;

		if (strcmp(d->routes[mid], rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; rc == 0 && i < d->n_routes; i++) {
		const char *r = d->routes[i], *c;

		if (strncmp(r, rel, l))
			break;
		if (l && r[l] != '/')
			continue;
		r += l + (l ? 1 : 0);
		if (!*r)
			continue;
		c = strchr(r, '/');
		rc = fw_names_copy(n, r, c ? (size_t)(c - r) : strlen(r));
	}
	return rc;
}

int fw_strv_add(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		char **p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	if (!((*v)[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

void fw_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

