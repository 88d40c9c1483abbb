/* fanwatch_diff.c - finish's comparison of the tree as it was with the
 * tree as it is (fanwatch.h), descending from each write root only where
 * events lie, and wholly below what appeared, disappeared or was replaced.
 * Every entry is looked at without following a symlink (statx and openat
 * with AT_SYMLINK_NOFOLLOW / O_NOFOLLOW, relative to its directory) and no
 * descent leaves the root's mount, as the walk (ref/changes.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fanwatch.h"

#define FW_DEPTH_MAX 64
#define FW_VISIT_MAX (2u * FW_T0_MAX)

/* One side of a name: what was there at the start (t) or is now (e). */
struct fw_side {
	bool present, isdir, same_as_now; /* same_as_now: no item, t is e */
	bool same_obj_as_live;   /* t: read from a's object now (privileged) */
	uint32_t obj;            /* interned handle, or FW_NONE */
	uint64_t ino;            /* from a listing or statx; 0 unknown */
	struct statx x;          /* e: what statx says */
};

struct fw_diff {
	struct platform_watch *w;
	platform_change_fn *emit;
	void *ctx;
	struct fw_root *root;
	unsigned char fsid[8];
	char path[PATH_MAX * 2];  /* the entry's absolute path */
	size_t len;
	char **routes;            /* paths under the root, sorted */
	size_t n_routes, cap_routes;
	uint64_t visited;
	bool rescan;              /* events lost (unprivileged): every directory
	                           * compared with the listing, files by change time */
	/* inode numbers of objects whose other names are modified too */
	uint64_t *inos;
	size_t n_inos, cap_inos;
	/* privileged: paths looked at of objects with several names */
	char **seen;
	size_t n_seen, cap_seen;
};

static int fw_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory entry of obj, or NULL when it has none. */
static struct fw_dir *fw_dirp(const struct platform_watch *w, uint32_t obj)
{
	return obj != FW_NONE && w->objs[obj].dir != FW_NONE ? &w->dirs[w->objs[obj].dir] : NULL;
}

/* ------------------------------------------------------------- the sides */

static int fw_live_open(struct fw_diff *d, uint32_t obj);
static const char *fw_rel(const struct fw_diff *d);
static int fw_strv_add(char ***v, size_t *n, size_t *cap, const char *s);
static int fw_end_side(struct fw_diff *d, int b, const char *name, struct fw_side *e,
		       bool intern, bool met);
static uint32_t fw_t0_find(struct platform_watch *w, uint32_t obj, const char *name);

/* Unprivileged: a start directory's listing entry for name, or FW_NONE. */
/* Privileged: what name of start directory a held at the start, from its
 * slot's first event; no event: what is there now (same_as_now). */
static void fw_t0_events(struct fw_diff *d, uint32_t a, const char *name, struct fw_side *t)
{
	struct platform_watch *w = d->w;
	uint32_t s = fw_slot_get(w, a, name, false);

	memset(t, 0, sizeof(*t));
	t->obj = FW_NONE;
	if (s == FW_NONE) {
		t->same_as_now = true;
		return;
	}
	if (w->slots[s].first_kind == FW_ARRIVE)
		return;
	t->present = true;
	t->obj = w->slots[s].first;
	t->isdir = (w->objs[t->obj].flags & FW_ISDIR) != 0;
}

/* What name of directory a (FW_NONE: none) held at the start.  narrow: a
 * is the directory open now (a name without events is as it is); else, for
 * privileged, live is where a's object is now (-1: gone). */
static void fw_t0_side(struct fw_diff *d, uint32_t a, const char *name, int live, bool narrow,
		       struct fw_side *t)
{
	struct platform_watch *w = d->w;
	uint32_t e;

	memset(t, 0, sizeof(*t));
	t->obj = FW_NONE;
	if (a == FW_NONE) {
		t->same_as_now = narrow;
		return;
	}
	if (w->privileged) {
		struct fw_side now;

		fw_t0_events(d, a, name, t);
		if (!t->same_as_now || narrow)
			return;
		/* named by no event: what a holds now, wherever it is */
		t->same_as_now = false;
		if (fw_end_side(d, live, name, &now, true, false) == 0 && now.present) {
			t->present = true;
			t->isdir = now.isdir;
			t->obj = now.obj;
			t->ino = now.ino;
			t->same_obj_as_live = true;
		}
		return;
	}
	if ((e = fw_t0_find(w, a, name)) == FW_NONE)
		return;
	w->t0[e].seen = 1;
	t->present = true;
	t->ino = w->t0[e].ino;
	t->isdir = w->t0[e].dtype == DT_DIR;
	t->obj = w->t0[e].child;
}

/* What name of the open directory b (-1: none) is now; its handle looked
 * up among the interned ones (intern: a directory's interned, so it can be
 * opened again; met: counted as a name of its object now). */
static int fw_end_side(struct fw_diff *d, int b, const char *name, struct fw_side *e,
		       bool intern, bool met)
{
	unsigned char fid[FW_FID_MAX];
	int len;

	memset(e, 0, sizeof(*e));
	e->obj = FW_NONE;
	if (b < 0)
		return 0;
	if (statx(b, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_MNT_ID,
		  &e->x) < 0)
		return errno == ENOENT ? 0 : -errno;
	e->present = true;
	e->isdir = S_ISDIR(e->x.stx_mode);
	e->ino = e->x.stx_ino;
	len = fw_fid_at(b, name, d->fsid, fid);
	if (len > 0)
		e->obj = fw_obj_get(d->w, fid, (uint32_t)len, intern && e->isdir);
	if (e->obj != FW_NONE && met) {
		d->w->objs[e->obj].met++;
		d->w->objs[e->obj].nlink = e->x.stx_nlink;
		d->w->objs[e->obj].ino = e->ino;
	}
	if (met && !e->isdir && e->x.stx_nlink > 1 && d->w->privileged)
		return fw_strv_add(&d->seen, &d->n_seen, &d->cap_seen, fw_rel(d));
	return 0;
}

/* Was the object at t the one at e? */
static bool fw_same(const struct fw_diff *d, const struct fw_side *t, const struct fw_side *e)
{
	if (t->same_as_now)
		return true;
	if (!d->w->privileged || t->same_obj_as_live)
		return t->ino == e->ino && t->isdir == e->isdir; /* one file system */
	return t->obj != FW_NONE && t->obj == e->obj;
}

/* Did an object arrive at name of directory a during the run (created,
 * renamed in: not the start's object, or the start's back again)? */
static bool fw_arrived(const struct platform_watch *w, uint32_t a, const char *name)
{
	uint32_t s = a == FW_NONE ? FW_NONE : fw_slot_get((struct platform_watch *)w, a, name, false);

	return s != FW_NONE && w->slots[s].arrived;
}

/* The same object at one name of directory a at the start and now: was it
 * modified (as the walk would see it)? */
static bool fw_modified(const struct fw_diff *d, uint32_t a, const char *name,
			const struct fw_side *e)
{
	const struct platform_watch *w = d->w;
	const struct fw_dir *o = fw_dirp(w, e->obj);
	uint32_t f = e->obj != FW_NONE ? w->objs[e->obj].flags : 0;

	if (e->isdir) {
		if (w->privileged)
			return f & FW_DIRATTR;
		/* the listing's directory: its mode and owner then */
		return o && (f & FW_T0DIR) &&
		       (((e->x.stx_mode ^ o->mode) & 07777) || e->x.stx_uid != o->uid ||
			e->x.stx_gid != o->gid);
	}
	if ((f & (FW_TOUCHED | FW_LINKS | FW_MOVED)) || fw_arrived(w, a, name))
		return true;
	if (d->rescan) /* what the walk compares: every change moves ctime */
		f |= FW_CLOSEW;
	/* written through a mapping: no event but the close, and the change
	 * time moved */
	return (f & FW_CLOSEW) && (e->x.stx_ctime.tv_sec > w->start.tv_sec ||
				   (e->x.stx_ctime.tv_sec == w->start.tv_sec &&
				    e->x.stx_ctime.tv_nsec >= (uint32_t)w->start.tv_nsec));
}

/* --------------------------------------------------------------- names */

/* Names looked at in one directory: pointers into the arena (events'
 * names, the listing's), or copies in text (names read now, route
 * components), whose pointers fw_names_fix() sets once all are in. */
struct fw_names {
	const char **v;
	size_t *off;              /* in text, or SIZE_MAX: v[i] as given */
	size_t n, cap;
	char *text;
	size_t text_len, text_cap;
};

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

static int fw_names_add(struct fw_names *n, const char *s)
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

static void fw_names_free(struct fw_names *n)
{
	free(n->v);
	free(n->off);
	free(n->text);
}

/* Every pointer set, sorted, each name once. */
static void fw_names_unique(struct fw_names *n)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n; i++)
		if (n->off[i] != SIZE_MAX)
			n->v[i] = n->text + n->off[i];
	qsort(n->v, n->n, sizeof(*n->v), fw_strcmp);
	for (size_t i = 0; i < n->n; i++)
		if (!k || strcmp(n->v[k - 1], n->v[i]))
			n->v[k++] = n->v[i];
	n->n = k;
}

/* Every entry of the directory fd (not consumed). */
static int fw_names_list(struct fw_names *n, int fd)
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
static int fw_names_slots(struct fw_diff *d, struct fw_names *n, uint32_t a)
{
	const struct fw_dir *dir = fw_dirp(d->w, a);
	int rc = 0;

	for (uint32_t s = dir ? dir->slots : FW_NONE; rc == 0 && s != FW_NONE; s = d->w->slots[s].dnext)
		rc = fw_names_add(n, fw_name(d->w, d->w->slots[s].name_off));
	return rc;
}

/* The next component of every route below rel (the path under the root,
 * "" for the root itself). */
static int fw_names_routes(struct fw_diff *d, struct fw_names *n, const char *rel)
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

/* ------------------------------------------------------------- descent */

static int fw_dir(struct fw_diff *d, uint32_t a, int b, bool narrow, int depth);

static void fw_emit(struct fw_diff *d, enum platform_change op)
{
	d->emit(d->ctx, op, d->path);
}

/* The path under the root of the current entry ("" for the root). */
static const char *fw_rel(const struct fw_diff *d)
{
	size_t rl = strlen(d->root->path);

	if (!strcmp(d->root->path, "/"))
		return d->path + 1;
	return d->len > rl ? d->path + rl + 1 : "";
}

static void fw_ino_note(struct fw_diff *d, uint64_t ino)
{
	if (!ino)
		return;
	if (d->n_inos == d->cap_inos) {
		size_t cap = d->cap_inos ? d->cap_inos * 2 : 64;
		uint64_t *v = realloc(d->inos, cap * sizeof(*v));

		if (!v) {
			fw_lose(d->w, "out of memory for hard links");
			return;
		}
		d->inos = v;
		d->cap_inos = cap;
	}
	d->inos[d->n_inos++] = ino;
}

/* Open the directory name of b on the root's mount for a descent; -1 when
 * there is none to enter (not a directory, another mount: listed only). */
static int fw_open_child(struct fw_diff *d, int b, const char *name)
{
	struct statx x;
	int c;

	if (b < 0)
		return -1;
	c = openat(b, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c < 0)
		return -1;
	if (statx(c, "", AT_EMPTY_PATH, STATX_MNT_ID, &x) < 0 || !(x.stx_mask & STATX_MNT_ID) ||
	    x.stx_mnt_id != d->root->mnt) {
		close(c);
		return -1;
	}
	return c;
}

/* Descend below name: a the start's directory there (FW_NONE: none), the
 * directory there now opened from b (none: -1). */
static int fw_below(struct fw_diff *d, uint32_t a, int b, const char *name, bool narrow,
		    int depth)
{
	int c = fw_open_child(d, b, name);
	int rc;

	if (a == FW_NONE && c < 0)
		return 0;
	rc = fw_dir(d, a, c, narrow, depth + 1);
	if (c >= 0)
		close(c);
	return rc;
}

/* The start's object at t and the present one at e, at the current path
 * (name of a and of b): report, then descend where needed. */
static int fw_entry(struct fw_diff *d, uint32_t a, int b, const char *name,
		    const struct fw_side *t, const struct fw_side *e, bool narrow, int depth)
{
	uint32_t ta = t->isdir && t->obj != FW_NONE ? t->obj : FW_NONE;

	if (!t->present && !e->present)
		return 0;
	if (!t->present) {
		fw_emit(d, PLATFORM_CREATED);
		if (!e->isdir && e->x.stx_nlink > 1)
			fw_ino_note(d, e->ino); /* a link: its other names changed */
		return e->isdir ? fw_below(d, FW_NONE, b, name, false, depth) : 0;
	}
	if (!e->present) {
		fw_emit(d, PLATFORM_DELETED);
		fw_ino_note(d, t->ino);
		return t->isdir ? fw_below(d, ta, -1, name, false, depth) : 0;
	}
	if (!fw_same(d, t, e)) {
		fw_emit(d, PLATFORM_MODIFIED);
		fw_ino_note(d, t->ino);
		fw_ino_note(d, e->ino);
		if (!t->isdir && !e->isdir)
			return 0;
		return fw_below(d, ta, e->isdir ? b : -1, name, false, depth);
	}
	if (fw_modified(d, a, name, e)) {
		fw_emit(d, PLATFORM_MODIFIED);
		if (!e->isdir)
			fw_ino_note(d, e->ino);
	}
	if (!e->isdir)
		return 0;
	/* the same directory: only where events lie below it (rescanning:
	 * all of it) */
	return fw_below(d, t->same_as_now ? e->obj : (t->obj != FW_NONE ? t->obj : e->obj), b,
			name, narrow && !d->rescan, depth);
}

/* The names fw_dir looks at: narrow, those events named and those on the
 * way to events below; else every name the start's directory held (its
 * listing, or its object now and its events) and the present one holds. */
static int fw_dir_names(struct fw_diff *d, struct fw_names *n, uint32_t a, int b, int live,
			bool narrow)
{
	const struct fw_dir *dir = fw_dirp(d->w, a);
	int rc = fw_names_slots(d, n, a);

	if (rc == 0 && narrow)
		rc = fw_names_routes(d, n, fw_rel(d));
	if (rc == 0 && !narrow && dir && !d->w->privileged)
		for (uint32_t i = 0; rc == 0 && i < dir->t0_count; i++)
			rc = fw_names_add(n, fw_name(d->w, d->w->t0[dir->t0_first + i].name_off));
	if (rc == 0 && !narrow && live >= 0)
		rc = fw_names_list(n, live);
	if (rc == 0 && !narrow && b >= 0)
		rc = fw_names_list(n, b);
	fw_names_unique(n);
	return rc;
}

/* Compare directory a as it was (FW_NONE: there was none) with the
 * directory open at b (-1: there is none), both at d->path.  narrow: they
 * are one object, looked at only where events lie. */
static int fw_dir(struct fw_diff *d, uint32_t a, int b, bool narrow, int depth)
{
	struct fw_names n = {0};
	size_t len0 = d->len;
	int live = -1, rc;

	if (depth > FW_DEPTH_MAX) {
		fw_lose(d->w, "directories deeper than %d levels below a root", FW_DEPTH_MAX);
		return 0;
	}
	if (!narrow && a != FW_NONE && d->w->privileged)
		live = fw_live_open(d, a);
	rc = fw_dir_names(d, &n, a, b, live, narrow);
	for (size_t i = 0; rc == 0 && i < n.n; i++) {
		struct fw_side t, e;
		int w = snprintf(d->path + len0, sizeof(d->path) - len0, "%s%s",
				 len0 == 1 && d->path[0] == '/' ? "" : "/", n.v[i]);

		if (w < 0 || (size_t)w >= sizeof(d->path) - len0 || ++d->visited > FW_VISIT_MAX) {
			fw_lose(d->w, "a path or the number of entries looked at is past the bound");
			break;
		}
		d->len = len0 + (size_t)w;
		fw_t0_side(d, a, n.v[i], live, narrow, &t);
		rc = fw_end_side(d, b, n.v[i], &e, false, true);
		if (t.same_as_now) { /* no event there: as it is */
			t.present = e.present;
			t.isdir = e.isdir;
			t.obj = e.obj;
			t.ino = e.ino;
		}
		if (rc == 0)
			rc = fw_entry(d, a, b, n.v[i], &t, &e, narrow, depth);
		d->path[len0] = '\0';
		d->len = len0;
	}
	if (live >= 0)
		close(live);
	fw_names_free(&n);
	return rc;
}

/* Privileged: the directory obj opened wherever it is now; -1 when it is
 * gone (every entry it held was deleted, each an event). */
static int fw_live_open(struct fw_diff *d, uint32_t obj)
{
	const struct fw_obj *o = &d->w->objs[obj];
	struct {
		struct file_handle h;
		unsigned char bytes[128];
	} fh;
	int fd = -1, e = ESTALE;

	fh.h.handle_bytes = o->fid_len - 12u;
	memcpy(&fh.h.handle_type, d->w->arena + o->fid_off + 8, 4);
	memcpy(fh.h.f_handle, d->w->arena + o->fid_off + 12, fh.h.handle_bytes);
	for (size_t i = 0; i < d->w->n_roots && fd < 0; i++) {
		if (memcmp(d->w->arena + o->fid_off, d->w->roots[i].fsid, 8))
			continue;
		fd = open_by_handle_at(d->w->roots[i].fd, &fh.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			e = errno;
	}
	if (fd < 0 && e != ESTALE && e != ENOENT)
		fw_lose(d->w, "a directory could not be found again: %s", strerror(e));
	return fd;
}

static const struct platform_watch *fw_sort_w;

static int fw_t0cmp(const void *a, const void *b)
{
	return strcmp(fw_sort_w->arena + ((const struct fw_t0ent *)a)->name_off,
		      fw_sort_w->arena + ((const struct fw_t0ent *)b)->name_off);
}

static uint32_t fw_t0_find(struct platform_watch *w, uint32_t obj, const char *name)
{
	struct fw_dir *o = fw_dirp(w, obj);
	uint32_t lo = 0, hi;

	if (!o || !(w->objs[obj].flags & FW_T0DIR))
		return FW_NONE;
	if (!o->sorted) {
		/* the children's links point at entries by index: remap */
		fw_sort_w = w;
		qsort(w->t0 + o->t0_first, o->t0_count, sizeof(*w->t0), fw_t0cmp);
		for (uint32_t i = 0; i < o->t0_count; i++) {
			struct fw_dir *c = fw_dirp(w, w->t0[o->t0_first + i].child);

			if (c)
				c->t0ent = o->t0_first + i;
		}
		o->sorted = 1;
	}
	hi = o->t0_count;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		int c = strcmp(w->arena + w->t0[o->t0_first + mid].name_off, name);

		if (c == 0)
			return o->t0_first + mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FW_NONE;
}

/* ------------------------------------------------------------- routes */

static int fw_strv_add(char ***v, size_t *n, size_t *cap, const char *s)
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

static int fw_route_add(struct fw_diff *d, const char *rel)
{
	return *rel ? fw_strv_add(&d->routes, &d->n_routes, &d->cap_routes, rel) : 0;
}

/* Unprivileged: where directory obj was under root ri (its parents'
 * listing entries), into buf; false when not under that root. */
static bool fw_t0_path(const struct platform_watch *w, uint32_t obj, size_t ri, char *buf,
		       size_t len)
{
	const char *comp[FW_DEPTH_MAX + 2];
	int n = 0;
	size_t at = 0;

	const struct fw_dir *dir = fw_dirp(w, obj);

	while (dir && dir->parent != FW_NONE && n < FW_DEPTH_MAX + 2) {
		comp[n++] = w->arena + w->t0[dir->t0ent].name_off;
		dir = fw_dirp(w, dir->parent);
	}
	if (!dir || dir->parent != FW_NONE || dir->t0ent != ri)
		return false;
	buf[0] = '\0';
	while (n-- > 0) {
		int k = snprintf(buf + at, len - at, "%s%s", at ? "/" : "", comp[n]);

		if (k < 0 || (size_t)k >= len - at)
			return false;
		at += (size_t)k;
	}
	return true;
}

/* Privileged: where directory obj is now under the root, into buf. */
static bool fw_now_path(struct fw_diff *d, uint32_t obj, char *buf, size_t len)
{
	char link[64], path[PATH_MAX];
	int fd = fw_live_open(d, obj);
	size_t rl = strlen(d->root->path);
	ssize_t n;

	if (fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1)
		return false;
	path[n] = '\0';
	if (!strcmp(d->root->path, "/"))
		return snprintf(buf, len, "%s", path + 1) < (int)len;
	if (strncmp(path, d->root->path, rl) || (path[rl] != '/' && path[rl]))
		return false;
	return snprintf(buf, len, "%s", path + rl + (path[rl] ? 1 : 0)) < (int)len;
}

/* Every directory events named (or whose attributes changed), as a path
 * under the root ri: unprivileged where it was, privileged where it is. */
static int fw_routes(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	char rel[PATH_MAX];
	int rc = 0;

	for (uint32_t i = 0; rc == 0 && i < w->n_objs; i++) {
		const struct fw_dir *dir = fw_dirp(w, i);

		if ((!dir || dir->slots == FW_NONE) && !(w->objs[i].flags & FW_DIRATTR))
			continue;
		if (w->privileged ? fw_now_path(d, i, rel, sizeof(rel)) :
		    ((w->objs[i].flags & FW_T0DIR) && fw_t0_path(w, i, ri, rel, sizeof(rel))))
			rc = fw_route_add(d, rel);
	}
	qsort(d->routes, d->n_routes, sizeof(*d->routes), fw_strcmp);
	return rc;
}

/* ---------------------------------------------------------- hard links */

static int fw_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool fw_ino_noted(const struct fw_diff *d, uint64_t ino)
{
	return bsearch(&ino, d->inos, d->n_inos, sizeof(*d->inos), fw_u64cmp) != NULL;
}

/* Open the directory at rel under the root (O_NOFOLLOW each step). */
static int fw_open_rel(const struct fw_diff *d, const char *rel)
{
	char buf[PATH_MAX], *save = NULL, *comp;
	int fd = dup(d->root->fd);

	snprintf(buf, sizeof(buf), "%s", rel);
	for (comp = strtok_r(buf, "/", &save); fd >= 0 && comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		fd = next;
	}
	return fd;
}

/* d->path := the root's path joined with rel and name. */
static void fw_set_path(struct fw_diff *d, const char *rel, const char *name)
{
	bool top = !strcmp(d->root->path, "/");

	snprintf(d->path, sizeof(d->path), "%s%s%s%s%s", top ? "" : d->root->path, "/", rel,
		 *rel ? "/" : "", name);
	d->len = strlen(d->path);
}

/* Another name of a written or re-linked object, unchanged itself: its
 * link count or change time moved, so the walk reports it modified. */
static void fw_other_name(struct fw_diff *d, int dirfd, const char *rel, const char *name,
			  uint64_t ino)
{
	struct statx x;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &x) < 0 ||
	    x.stx_ino != ino || S_ISDIR(x.stx_mode))
		return;
	fw_set_path(d, rel, name);
	fw_emit(d, PLATFORM_MODIFIED);
}

/* Unprivileged: the listing's names of the noted objects the descent did
 * not look at (they had no event: the same object, re-linked or written
 * through another name). */
static void fw_links_listed(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	char rel[PATH_MAX];

	for (uint32_t o = 0; o < w->n_objs && d->n_inos; o++) {
		const struct fw_dir *dir = fw_dirp(w, o);
		int fd = -1;

		if (!dir || !(w->objs[o].flags & FW_T0DIR))
			continue;
		for (uint32_t i = 0; i < dir->t0_count; i++) {
			struct fw_t0ent *e = &w->t0[dir->t0_first + i];

			if (e->seen || e->dtype == DT_DIR || !fw_ino_noted(d, e->ino))
				continue;
			if (fd < 0 && (!fw_t0_path(w, o, ri, rel, sizeof(rel)) ||
				       (fd = fw_open_rel(d, rel)) < 0))
				break;
			e->seen = 1;
			fw_other_name(d, fd, rel, fw_name(w, e->name_off), e->ino);
		}
		if (fd >= 0)
			close(fd);
	}
}

/* Privileged: every name under the root whose inode is noted and that the
 * descent did not look at (a walk of directory entries: hard links only). */
static void fw_search(struct fw_diff *d, int fd, char *rel, size_t rl, int depth)
{
	DIR *dir;
	struct dirent *de;
	int c = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (c < 0 || !(dir = fdopendir(c))) {
		if (c >= 0)
			close(c);
		fw_lose(d->w, "a directory could not be read looking for hard links");
		return;
	}
	while ((de = readdir(dir))) {
		int k;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++d->visited > FW_VISIT_MAX || depth > FW_DEPTH_MAX) {
			fw_lose(d->w, "the bound of entries looked at, looking for hard links");
			break;
		}
		k = snprintf(rel + rl, PATH_MAX - rl, "%s%s", rl ? "/" : "", de->d_name);
		if (k < 0 || (size_t)k >= PATH_MAX - rl)
			continue;
		if (de->d_type == DT_DIR) {
			int sub = fw_open_child(d, dirfd(dir), de->d_name);

			if (sub >= 0) {
				fw_search(d, sub, rel, rl + (size_t)k, depth + 1);
				close(sub);
			}
		} else if (fw_ino_noted(d, de->d_ino) &&
			   !bsearch(&(const char *){rel}, d->seen, d->n_seen, sizeof(char *), fw_strcmp)) {
			rel[rl] = '\0';
			fw_other_name(d, dirfd(dir), rel, de->d_name, de->d_ino);
		}
		rel[rl] = '\0';
	}
	closedir(dir);
}

/* Privileged: objects written or re-linked whose link count says they have
 * names the descent did not meet; their inode numbers into d->inos. */
static void fw_links_candidates(struct fw_diff *d)
{
	struct platform_watch *w = d->w;

	d->n_inos = 0;
	for (uint32_t i = 0; i < w->n_objs; i++) {
		struct fw_obj *o = &w->objs[i];
		struct stat st;
		int fd;

		if ((o->flags & FW_ISDIR) || !(o->flags & (FW_TOUCHED | FW_LINKS | FW_MOVED | FW_CLOSEW)))
			continue;
		if (o->met) {
			if (o->nlink > o->met)
				fw_ino_note(d, o->ino);
			continue;
		}
		if (!(o->flags & FW_LINKS) || memcmp(w->arena + o->fid_off, d->root->fsid, 8))
			continue;
		/* met nowhere: gone, or linked only where the descent did not go */
		{
			struct {
				struct file_handle h;
				unsigned char bytes[128];
			} fh;

			fh.h.handle_bytes = o->fid_len - 12;
			memcpy(&fh.h.handle_type, w->arena + o->fid_off + 8, 4);
			memcpy(fh.h.f_handle, w->arena + o->fid_off + 12, fh.h.handle_bytes);
			fd = open_by_handle_at(d->root->fd, &fh.h, O_PATH | O_CLOEXEC);
		}
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_nlink > 0 && !S_ISDIR(st.st_mode))
			fw_ino_note(d, st.st_ino);
		if (fd >= 0)
			close(fd);
	}
}

static void fw_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* One root: the descent from it, then the other names of what changed. */
static int fw_diff_root(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	unsigned char fid[FW_FID_MAX];
	char rel[PATH_MAX] = "";
	int len = fw_fid_at(d->root->fd, "", d->fsid, fid), rc;
	/* the root itself swapped since the start: compared whole */
	bool same = len > 0 && fw_obj_get(w, fid, (uint32_t)len, false) == d->root->obj;

	rc = fw_routes(d, ri);
	if (rc == 0)
		rc = fw_dir(d, d->root->obj, d->root->fd, same && !d->rescan, 0);
	if (rc < 0)
		return rc;
	if (w->privileged)
		fw_links_candidates(d);
	qsort(d->inos, d->n_inos, sizeof(*d->inos), fw_u64cmp);
	if (!d->n_inos)
		return 0;
	if (w->privileged) {
		qsort(d->seen, d->n_seen, sizeof(*d->seen), fw_strcmp);
		fw_search(d, d->root->fd, rel, 0, 0);
	} else {
		fw_links_listed(d, ri);
	}
	return 0;
}

int fw_diff(struct platform_watch *w, platform_change_fn *emit, void *ctx)
{
	int rc = 0;

	for (uint32_t s = 0; s < w->n_slots; s++) {
		uint32_t dir = fw_dir_of(w, w->slots[s].dir);

		if (dir == FW_NONE)
			return -ENOMEM;
		w->slots[s].dnext = w->dirs[dir].slots;
		w->dirs[dir].slots = s;
	}
	/* Unprivileged, events lost: the listing of the start is complete, so
	 * a walk compared with it is the report, whole (privileged has no
	 * listing: what was emitted is certain, the rest unknown). */
	bool rescan = w->lost && !w->privileged;

	if (rescan) {
		snprintf(w->rescanned, sizeof(w->rescanned),
			 "%s; compared by a walk with the start's listing", w->lost_why);
		w->lost = false;
	}
	for (size_t ri = 0; rc == 0 && ri < w->n_roots; ri++) {
		struct fw_diff d = {.w = w, .emit = emit, .ctx = ctx, .root = &w->roots[ri],
				    .rescan = rescan};

		memcpy(d.fsid, d.root->fsid, 8);
		snprintf(d.path, sizeof(d.path), "%s", d.root->path);
		d.len = strlen(d.path);
		rc = fw_diff_root(&d, ri);
		fw_strv_free(d.routes, d.n_routes);
		fw_strv_free(d.seen, d.n_seen);
		free(d.inos);
	}
	return rc;
}
