/* wjournal.c - the crash-safe journal's engine (wjournal.h). */
#include "wjournal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append one formatted line, whole and flushed, or fail. */
__attribute__((format(printf, 2, 3)))
static int journal_line(const struct wj_ops *ops, const char *fmt, ...);

static int journal_line(const struct wj_ops *ops, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0 || !(line = malloc((size_t)n + 1)))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = ops->append(ops->ctx, line, (size_t)n);
	free(line);
	return rc;
}

/* A path or SDDL the format cannot carry (a tab or a newline). */
static bool unsafe(const char *s)
{
	return strpbrk(s, "\t\n\r") != NULL;
}

/* The path is absent: by the rule, refused, skipped (1), or created after
 * its intent is in the journal; then opened. */
static int absent_path(const struct wj_ops *ops, const char *path, enum wj_absent absent,
		       struct wj_obj *o, bool *created)
{
	int rc;

	if (absent == WJ_ABSENT_SKIP)
		return 1;
	if (absent != WJ_ABSENT_CREATE_DIR)
		return -ENOENT;
	rc = journal_line(ops, "v2\tmkdir\t%s\n", path);
	if (rc == 0) {
		rc = ops->make_dir(ops->ctx, path);
		*created = rc == 0;
		if (rc == -EEXIST)
			rc = 0; /* appeared meanwhile: opened and judged like any */
	}
	return rc < 0 ? rc : ops->open_path(ops->ctx, path, o);
}

int wj_apply(const struct wj_ops *ops, const char *path, enum wj_absent absent, bool walk,
	     wj_change_fn change, void *arg, bool *applied)
{
	struct wj_obj o = {0};
	bool created = false, opened = false, journalled = false;
	char *sddl = NULL;
	int rc;

	*applied = false;
	if (unsafe(path))
		return -EINVAL;
	rc = ops->open_path(ops->ctx, path, &o);
	if (rc == -ENOENT)
		rc = absent_path(ops, path, absent, &o, &created);
	if (rc == 1)
		return 0;
	opened = rc == 0;
	if (rc == 0)
		rc = ops->get_dacl(ops->ctx, &o, &sddl);
	if (rc == 0 && unsafe(sddl))
		rc = -EINVAL;
	if (rc == 0)
		rc = journal_line(ops, "v2\t%s\t%016" PRIx64 "\t%016" PRIx64 "\t%d\t%s\t%s\n",
				  walk && o.dir ? "daclw" : "dacl", o.vol, o.idx, created ? 1 : 0,
				  sddl, path);
	journalled = rc == 0;
	if (rc == 0)
		rc = change(arg, &o);
	*applied = rc == 0;
	/* Ours, and no dacl line records it yet: removed now (the mkdir line
	 * would have it removed by a replay too). */
	if (rc < 0 && created && opened && !journalled)
		ops->rmdir_empty(ops->ctx, &o, path);
	if (opened)
		ops->close_obj(ops->ctx, &o);
	free(sddl);
	return rc;
}

/* ---- replay ------------------------------------------------------------------ */

enum kind { K_MKDIR, K_DACL };

struct entry {
	enum kind kind;
	uint64_t vol, idx;
	bool created, walk;
	const char *sddl, *path;
};

static bool hex_u64(const char *s, size_t want, uint64_t *v)
{
	char *end = NULL;

	if (strlen(s) != want || strspn(s, "0123456789abcdefABCDEF") != want)
		return false;
	*v = strtoull(s, &end, 16);
	return end && !*end;
}

/* Split line in place at tabs into at most max fields; their count. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line; n < max; n++) {
		f[n] = p;
		p = strchr(p, '\t');
		if (!p)
			return n + 1;
		*p++ = '\0';
	}
	return max + 1; /* more fields than any entry has */
}

static bool parse_dacl(char **f, int vol_len, struct entry *e)
{
	e->kind = K_DACL; /* e->walk set by the caller */
	e->created = f[2][0] == '1';
	e->sddl = f[3];
	e->path = f[4];
	return hex_u64(f[0], (size_t)vol_len, &e->vol) && hex_u64(f[1], 16, &e->idx) &&
	       (!strcmp(f[2], "0") || !strcmp(f[2], "1")) && f[3][0] && f[4][0];
}

/* One line (no newline) as an entry. */
static bool parse(char *line, struct entry *e)
{
	char *f[8];
	int n = split(line, f, 7);

	memset(e, 0, sizeof(*e));
	if (n == 3 && !strcmp(f[0], "v2") && !strcmp(f[1], "mkdir") && f[2][0]) {
		e->kind = K_MKDIR;
		e->path = f[2];
		return true;
	}
	if (n == 7 && !strcmp(f[0], "v2") && (!strcmp(f[1], "dacl") || !strcmp(f[1], "daclw"))) {
		e->walk = f[1][4] == 'w';
		return parse_dacl(f + 2, 16, e);
	}
	if (n == 6 && !strcmp(f[0], "v1")) /* an earlier runner's */
		return parse_dacl(f + 1, 8, e);
	return false;
}

static void fail(struct wj_report *rep, int *first, int err, const char *why)
{
	if (*first == 0) {
		*first = err;
		rep->why = why;
	}
}

static void undo_dacl(const struct wj_ops *ops, const struct entry *e, struct wj_report *rep,
		      int *first)
{
	struct wj_obj o = {0};
	int rc = ops->open_path(ops->ctx, e->path, &o);

	if (rc == -ENOENT)
		return; /* gone: nothing of ours left to restore */
	if (rc < 0) {
		fail(rep, first, rc, "an entry's object cannot be opened");
		return;
	}
	if (o.vol != e->vol || o.idx != e->idx) {
		fail(rep, first, -EEXIST, "another object now has an entry's path: not restored");
	} else if ((rc = ops->set_dacl(ops->ctx, &o, e->sddl)) < 0) {
		fail(rep, first, rc, "a prior DACL cannot be set back");
	} else if (e->walk && ops->propagate && (rc = ops->propagate(ops->ctx, &o)) < 0) {
		fail(rep, first, rc, "a prior DACL set back cannot be propagated below it");
	} else {
		rep->restored++;
		if (e->created && o.dir && ops->rmdir_empty(ops->ctx, &o, e->path) == 0)
			rep->removed++;
	}
	ops->close_obj(ops->ctx, &o);
}

static void undo_mkdir(const struct wj_ops *ops, const struct entry *e, struct wj_report *rep)
{
	struct wj_obj o = {0};

	if (ops->open_path(ops->ctx, e->path, &o) < 0)
		return; /* never made, or already removed */
	if (o.dir && ops->rmdir_empty(ops->ctx, &o, e->path) == 0)
		rep->removed++;
	ops->close_obj(ops->ctx, &o);
}

int wj_replay(const struct wj_ops *ops, char *text, size_t len, struct wj_report *rep)
{
	size_t n = 0, k = 0;
	struct entry *v;
	int first = 0;

	memset(rep, 0, sizeof(*rep));
	if (len && text[len - 1] != '\n') {
		/* The torn last line: its change never happened. */
		while (len && text[len - 1] != '\n')
			len--;
		rep->torn = 1;
	}
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (char *p = text; k < n; k++) {
		char *nl = memchr(p, '\n', len - (size_t)(p - text));

		*nl = '\0';
		if (!parse(p, &v[k])) {
			free(v);
			rep->why = "a journal line that is not the last does not parse: nothing replayed";
			return -EINVAL;
		}
		p = nl + 1;
	}
	while (k-- > 0) {
		if (v[k].kind == K_DACL)
			undo_dacl(ops, &v[k], rep, &first);
		else
			undo_mkdir(ops, &v[k], rep);
	}
	free(v);
	return first;
}
