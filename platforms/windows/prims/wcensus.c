/* wcensus.c - the portable part of the Windows census (wcensus.h). */
#include "wcensus.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *wcensus_kind_name(enum census_kind k)
{
	static const char *const names[] = {"proc", "marked", "mount", "lock", "file"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void wcensus_free(struct census *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].key);
		free(c->items[i].text);
	}
	free(c->items);
	memset(c, 0, sizeof(*c));
}

int wcensus_push(struct census *c, enum census_kind kind, char *key, char *text)
{
	if (key && text && c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct census_item *v = realloc(c->items, cap * sizeof(*v));

		if (v) {
			c->items = v;
			c->cap = cap;
		}
	}
	if (!key || !text || c->n == c->cap) {
		free(key);
		free(text);
		return -ENOMEM;
	}
	c->items[c->n++] = (struct census_item){kind, key, text};
	return 0;
}

__attribute__((format(printf, 1, 2)))
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

static const struct wcensus_proc *find(const struct wcensus_proc *v, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

/* a is created no later than b; an unknown time (0) proves nothing */
static bool older(const struct wcensus_proc *a, const struct wcensus_proc *b)
{
	return a->created && b->created && a->created <= b->created;
}

bool wcensus_descends(const struct wcensus_proc *v, size_t n, size_t i, uint32_t self)
{
	const struct wcensus_proc *cur = &v[i], *me = find(v, n, self);

	if (cur->pid == self)
		return false;
	for (size_t depth = 0; depth < n; depth++) {
		const struct wcensus_proc *up;

		if (cur->ppid == self)
			return !me || older(me, cur);
		up = find(v, n, cur->ppid);
		if (!up || up == cur || !older(up, cur))
			return false; /* gone, a cycle, or a recycled pid */
		cur = up;
	}
	return false;
}

static int add_proc(struct census *c, enum census_kind kind, const struct wcensus_proc *p)
{
	return wcensus_push(c, kind, fmt("%lu.%llu", (unsigned long)p->pid, (unsigned long long)p->created),
			    fmt("pid %lu ppid %lu %s: %s", (unsigned long)p->pid, (unsigned long)p->ppid,
				p->exe, p->cmdline ? p->cmdline : "(command line unreadable)"));
}

int wcensus_add_procs(struct census *c, const struct wcensus_proc *v, size_t n, uint32_t self,
		      const char *marker)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		if (wcensus_descends(v, n, i, self))
			rc = add_proc(c, CENSUS_PROC, &v[i]);
		if (rc == 0 && marker && *marker && v[i].pid != self && v[i].cmdline &&
		    strstr(v[i].cmdline, marker))
			rc = add_proc(c, CENSUS_MARKED, &v[i]);
	}
	return rc;
}

struct walk {
	struct census *c;
	size_t count;
	int truncated;
	/* what an entry adds (st its lstat); 0 or -errno, which ends the walk */
	int (*visit)(struct walk *w, const char *path, const struct stat *st);
	int (*held)(const char *path, void *arg); /* the locks census's question */
	void *arg;
};

/* Never follows a link: entries are lstat'ed, only directories descended. */
static int walk_dir(struct walk *w, const char *path, int depth)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return errno == ENOENT && depth == 0 ? 0 : -errno;
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (w->count++ >= CENSUS_MAX_FILES) {
			w->truncated = 1;
			break;
		}
		if (!(sub = fmt("%s/%s", path, de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		if (lstat(sub, &st) == 0) { /* else removed meanwhile */
			rc = w->visit(w, sub, &st);
			if (rc == 0 && S_ISDIR(st.st_mode) && depth < CENSUS_MAX_DEPTH) {
				int sr = walk_dir(w, sub, depth + 1);

				/* files: an unreadable subdirectory is skipped; locks:
				 * its files unasked, the census fails (but one gone) */
				rc = sr == -ENOMEM || (w->held && sr < 0 && sr != -ENOENT) ? sr : 0;
			} else if (S_ISDIR(st.st_mode)) {
				w->truncated = 1;
			}
		}
		free(sub);
	}
	closedir(d);
	return rc;
}

static int visit_file(struct walk *w, const char *path, const struct stat *st)
{
	char type = S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' :
		    S_ISREG(st->st_mode) ? 'f' : 'o';

	return wcensus_push(w->c, CENSUS_FILE, strdup(path), fmt("%c %s", type, path));
}

int wcensus_add_files(struct census *c, const char *const *dirs)
{
	for (size_t i = 0; dirs && dirs[i]; i++) {
		struct walk w = {.c = c, .visit = visit_file};
		int rc = walk_dir(&w, dirs[i], 0);

		if (rc == 0 && w.truncated)
			rc = wcensus_push(c, CENSUS_FILE, fmt("truncated %s", dirs[i]),
					  fmt("census of %s truncated", dirs[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A regular file only: a link is never asked about (that would follow it). */
static int visit_lock(struct walk *w, const char *path, const struct stat *st)
{
	int h;

	if (!S_ISREG(st->st_mode))
		return 0;
	h = w->held(path, w->arg);
	if (h == -ENOENT || h == 0)
		return 0; /* removed meanwhile, or free */
	if (h < 0)
		return h;
	return wcensus_push(w->c, CENSUS_LOCK, fmt("held %s", path),
			    fmt("a lock held on %s (an exclusive lock refused)", path));
}

int wcensus_add_locks(struct census *c, const char *dir, int (*held)(const char *, void *), void *arg)
{
	struct walk w = {.c = c, .visit = visit_lock, .held = held, .arg = arg};
	int rc;

	if (!dir || !held)
		return -EINVAL;
	rc = walk_dir(&w, dir, 0);
	if (rc == 0 && w.truncated)
		rc = wcensus_push(c, CENSUS_LOCK, fmt("truncated %s", dir),
				  fmt("lock census of %s truncated: not every file was asked", dir));
	return rc;
}

static int item_cmp(const void *a, const void *b)
{
	const struct census_item *x = *(const struct census_item *const *)a;
	const struct census_item *y = *(const struct census_item *const *)b;

	return x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : strcmp(x->key, y->key);
}

int wcensus_diff(const struct census *before, const struct census *after, struct census *added)
{
	const struct census_item **idx = NULL;
	int rc = 0;

	if (!added)
		return -EINVAL;
	memset(added, 0, sizeof(*added));
	if (!before || !after)
		return -EINVAL;
	if (before->n && !(idx = malloc(before->n * sizeof(*idx))))
		return -ENOMEM;
	for (size_t i = 0; i < before->n; i++)
		idx[i] = &before->items[i];
	if (idx)
		qsort(idx, before->n, sizeof(*idx), item_cmp);
	for (size_t i = 0; i < after->n && rc == 0; i++) {
		const struct census_item *it = &after->items[i];

		if (!idx || !bsearch(&it, idx, before->n, sizeof(*idx), item_cmp))
			rc = wcensus_push(added, it->kind, strdup(it->key), strdup(it->text));
	}
	free(idx);
	return rc;
}
