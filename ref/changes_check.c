/* changes_check.c - see changes_check.h. */
#include "changes_check.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changes.h"
#include "jw.h"

#define CHECK_SET_MAX (2u * CHANGES_WALK_MAX)
#define CHECK_LIST_MAX 8

struct changes_set {
	char **v;   /* "c /path", "m /path", "d /path" */
	size_t n, cap;
	bool full;  /* past the bound: not every entry is here */
};

struct changes_set *changes_set_new(void)
{
	return calloc(1, sizeof(struct changes_set));
}

void changes_set_add(struct changes_set *s, char op, const char *path)
{
	size_t len = strlen(path);
	char *e;

	if (!s || s->full)
		return;
	if (s->n == CHECK_SET_MAX) {
		s->full = true;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->full = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	if (!(e = malloc(len + 3))) {
		s->full = true;
		return;
	}
	e[0] = op;
	e[1] = ' ';
	memcpy(e + 2, path, len + 1);
	s->v[s->n++] = e;
}

void changes_set_free(struct changes_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s);
}

static int check_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a not in b (both sorted), at most CHECK_LIST_MAX listed;
 * how many in all. */
static size_t check_only(struct jw *w, const char *key, const struct changes_set *a,
			 const struct changes_set *b)
{
	size_t i = 0, j = 0, n = 0;

	jw_arr_open(w, key);
	while (i < a->n) {
		int c = j < b->n ? strcmp(a->v[i], b->v[j]) : -1;

		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (n++ < CHECK_LIST_MAX)
				jw_str(w, NULL, a->v[i]);
			i++;
		} else {
			j++;
		}
	}
	jw_arr_close(w);
	return n;
}

void changes_check_log(struct changes_set *walk, struct changes_set *events, const char *note)
{
	const char *file = getenv("SANDPROOF_REF_CHANGES_LOG");
	struct changes_set none = {0};
	size_t a, b;
	FILE *f;
	struct jw w;
	int fd;

	if (!file || !*file)
		return;
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "a"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* one buffer larger than any line: the line goes in one write, so
	 * lines of concurrent runs never interleave */
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	walk = walk ? walk : &none;
	events = events ? events : &none;
	if (walk->n)
		qsort(walk->v, walk->n, sizeof(*walk->v), check_cmp);
	if (events->n)
		qsort(events->v, events->n, sizeof(*events->v), check_cmp);
	jw_init(&w, f);
	jw_obj_open(&w, NULL);
	a = check_only(&w, "walk_only", walk, events);
	b = check_only(&w, "events_only", events, walk);
	jw_bool(&w, "agree", !a && !b && !walk->full && !events->full && !note);
	jw_uint(&w, "walk", walk->n);
	jw_uint(&w, "events", events->n);
	if (note)
		jw_str(&w, "note", note);
	else
		jw_null(&w, "note");
	jw_obj_close(&w);
	fputc('\n', f);
	if (fclose(f) != 0)
		fprintf(stderr, "sandproof-ref: SANDPROOF_REF_CHANGES_LOG: cannot write\n");
}
