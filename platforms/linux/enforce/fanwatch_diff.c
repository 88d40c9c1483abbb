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

#include "fanwatch_int.h"

/* ------------------------------------------------------------- the sides */

static int fw_end_side(struct fw_diff *d, int b, const char *name, struct fw_side *e,
		       bool intern, bool met);
static uint32_t fw_t0_find(struct platform_watch *w, uint32_t obj, const char *name);

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

/* ------------------------------------------------------------- descent */

static int fw_dir(struct fw_diff *d, uint32_t a, int b, bool narrow, int depth);

void fw_emit(struct fw_diff *d, enum platform_change op)
{
	d->emit(d->ctx, op, d->path);
}

/* The path under the root of the current entry ("" for the root). */
const char *fw_rel(const struct fw_diff *d)
{
	size_t rl = strlen(d->root->path);

	if (!strcmp(d->root->path, "/"))
		return d->path + 1;
	return d->len > rl ? d->path + rl + 1 : "";
}

void fw_ino_note(struct fw_diff *d, uint64_t ino)
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
int fw_open_child(struct fw_diff *d, int b, const char *name)
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
int fw_live_open(struct fw_diff *d, uint32_t obj)
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
		if (o->t0_count)
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

/* One root: the descent from it, then the other names of what changed. */
static int fw_diff_root(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	unsigned char fid[FW_FID_MAX];
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
	fw_links_find(d, ri);
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
