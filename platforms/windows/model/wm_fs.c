/* wm_fs.c - the model's file tree (wm_fs.h). */
#include "wm_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Children are found by scanning the nodes whose parent is the directory;
 * the trees the tests build are small enough. */

static int fold(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (fold((unsigned char)*a) != fold((unsigned char)*b))
			return false;
	return *a == *b;
}

int wm_fs_init(struct wm_fs *fs, const struct wm_sd *root_sd)
{
	memset(fs, 0, sizeof(*fs));
	fs->cap = 64;
	fs->v = calloc(fs->cap, sizeof(*fs->v));
	if (!fs->v)
		return -ENOMEM;
	/* Node 0 holds the drives and is no object: an empty DACL, no owner,
	 * so nothing is granted on it (a drive has no parent to delete from). */
	fs->v[0].kind = WM_DIR;
	fs->v[0].parent = -1;
	fs->v[0].sd.has_dacl = true;
	fs->n = 1;
	return wm_fs_drive(fs, "C:", root_sd) < 0 ? -ENOMEM : 0;
}

int wm_fs_drive(struct wm_fs *fs, const char *name, const struct wm_sd *sd)
{
	int d = wm_fs_child(fs, 0, name);

	if (d >= 0)
		return d;
	if (fs->n == fs->cap) {
		void *p = realloc(fs->v, 2 * fs->cap * sizeof(*fs->v));

		if (!p)
			return -ENOMEM;
		fs->v = p;
		fs->cap *= 2;
	}
	memset(&fs->v[fs->n], 0, sizeof(fs->v[0]));
	snprintf(fs->v[fs->n].name, WM_NAME_MAX, "%s", name);
	fs->v[fs->n].kind = WM_DIR;
	fs->v[fs->n].parent = 0;
	fs->v[fs->n].sd = *sd;
	return (int)fs->n++;
}

void wm_fs_free(struct wm_fs *fs)
{
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

int wm_fs_child(const struct wm_fs *fs, int dir, const char *name)
{
	for (size_t i = 1; i < fs->n; i++)
		if (fs->v[i].parent == dir && !fs->v[i].gone && name_eq(fs->v[i].name, name))
			return (int)i;
	return -1;
}

static int resolve_depth(const struct wm_fs *fs, const char *path, bool follow_last, int depth)
{
	char buf[WM_PATH_MAX], *save = NULL, *c;
	int node = 0;

	if (depth > 16 || strlen(path) >= sizeof(buf))
		return -1;
	memcpy(buf, path, strlen(path) + 1);
	c = strtok_r(buf, "\\", &save);
	node = c ? wm_fs_child(fs, 0, c) : -1;
	if (node < 0)
		return -1;
	for (c = strtok_r(NULL, "\\", &save); c; c = strtok_r(NULL, "\\", &save)) {
		bool last;

		node = wm_fs_child(fs, node, c);
		if (node < 0)
			return -1;
		last = save == NULL || *save == '\0';
		if (fs->v[node].kind == WM_JUNCTION && (!last || follow_last)) {
			node = resolve_depth(fs, fs->v[node].target, true, depth + 1);
			if (node < 0)
				return -1;
		}
	}
	return node;
}

int wm_fs_resolve(const struct wm_fs *fs, const char *path, bool follow_last)
{
	return resolve_depth(fs, path, follow_last, 0);
}

void wm_fs_path(const struct wm_fs *fs, int node, char buf[WM_PATH_MAX])
{
	size_t len, n = strlen(fs->v[node].name);

	if (fs->v[node].parent <= 0) {
		memcpy(buf, fs->v[node].name, n + 1);
		return;
	}
	wm_fs_path(fs, fs->v[node].parent, buf);
	len = strlen(buf);
	if (len + 1 + n >= WM_PATH_MAX)
		return; /* too deep for the buffer: the parent's path stands */
	buf[len] = '\\';
	memcpy(buf + len + 1, fs->v[node].name, n + 1);
}

bool wm_fs_beneath(const struct wm_fs *fs, int dir, int node)
{
	for (; node >= 0; node = fs->v[node].parent)
		if (node == dir)
			return true;
	return false;
}

static void push(struct wm_ace *out, size_t *n, const struct wm_ace *a, unsigned flags,
		 const char *sid, bool map)
{
	if (*n == WM_ACES_MAX)
		return;
	out[*n] = *a;
	out[*n].flags = flags | WM_INHERITED;
	if (map) {
		out[*n].mask = wm_map_generic(a->mask, &wm_file_mapping);
		snprintf(out[*n].sid, WM_SID_MAX, "%s", sid);
	}
	(*n)++;
}

/* "ACE Inheritance Rules" (wm_fs.h); generic rights and CREATOR OWNER are
 * mapped on an effective copy and kept on an inherit-only one. */
void wm_fs_inherited(const struct wm_sd *parent, bool child_is_dir, const char *owner,
		     struct wm_ace *out, size_t *n)
{
	for (size_t i = 0; parent->has_dacl && i < parent->n_dacl; i++) {
		const struct wm_ace *a = &parent->dacl[i];
		bool oi = a->flags & WM_OI, ci = a->flags & WM_CI, np = a->flags & WM_NP;
		const char *sid = strcmp(a->sid, WM_CREATOR_OWNER) == 0 ? owner : a->sid;
		bool generic = sid != a->sid || wm_map_generic(a->mask, &wm_file_mapping) != a->mask;

		if (!child_is_dir) {
			if (oi)
				push(out, n, a, 0, sid, true);
		} else if (ci && np) {
			push(out, n, a, 0, sid, true);
		} else if (ci && generic) {
			/* Two ACEs: effective (mapped) and inherit-only (generic). */
			push(out, n, a, 0, sid, true);
			push(out, n, a, (a->flags & (WM_OI | WM_CI)) | WM_IO, NULL, false);
		} else if (ci) {
			push(out, n, a, a->flags & (WM_OI | WM_CI), sid, true);
		} else if (oi && !np) {
			push(out, n, a, WM_OI | WM_IO, NULL, false);
		}
	}
}

static bool is_container(enum wm_kind k)
{
	return k == WM_DIR || k == WM_JUNCTION;
}

int wm_fs_create(struct wm_fs *fs, int dir, const char *name, enum wm_kind kind,
		 const char *owner_sid, const struct wm_sd *dflt, const char *target)
{
	struct wm_node *nd;

	if (dir < 0 || (size_t)dir >= fs->n || fs->v[dir].kind != WM_DIR ||
	    strlen(name) >= WM_NAME_MAX || strchr(name, '\\'))
		return -EINVAL;
	if (wm_fs_child(fs, dir, name) >= 0)
		return -EEXIST;
	if (fs->n == fs->cap) {
		void *p = realloc(fs->v, 2 * fs->cap * sizeof(*fs->v));

		if (!p)
			return -ENOMEM;
		fs->v = p;
		fs->cap *= 2;
	}
	nd = &fs->v[fs->n];
	memset(nd, 0, sizeof(*nd));
	snprintf(nd->name, WM_NAME_MAX, "%s", name);
	nd->kind = kind;
	nd->parent = dir;
	snprintf(nd->target, WM_PATH_MAX, "%s", target ? target : "");
	snprintf(nd->sd.owner, WM_SID_MAX, "%s", owner_sid);
	nd->sd.has_dacl = true;
	wm_fs_inherited(&fs->v[dir].sd, is_container(kind), owner_sid, nd->sd.dacl, &nd->sd.n_dacl);
	if (nd->sd.n_dacl == 0 && dflt) {
		nd->sd = *dflt;
		snprintf(nd->sd.owner, WM_SID_MAX, "%s", owner_sid);
	}
	return (int)fs->n++;
}

size_t wm_fs_explicit(const struct wm_fs *fs, int node, struct wm_ace *out)
{
	size_t k = 0;

	for (size_t i = 0; i < fs->v[node].sd.n_dacl; i++)
		if (!(fs->v[node].sd.dacl[i].flags & WM_INHERITED))
			out[k++] = fs->v[node].sd.dacl[i];
	return k;
}

/* node's DACL: its explicit ACEs, then (unless protected) what it inherits
 * from the SD of `from`.  One DACL rewritten. */
static void reinherit(struct wm_fs *fs, int node, const struct wm_sd *from)
{
	struct wm_node *nd = &fs->v[node];
	struct wm_ace ex[WM_ACES_MAX];
	size_t n = wm_fs_explicit(fs, node, ex);

	memcpy(nd->sd.dacl, ex, n * sizeof(ex[0]));
	nd->sd.n_dacl = n;
	if (!nd->sd.protected_dacl)
		wm_fs_inherited(from, is_container(nd->kind), nd->sd.owner, nd->sd.dacl,
				&nd->sd.n_dacl);
	fs->dacl_writes++;
}

static void propagate(struct wm_fs *fs, int dir, enum wm_propagate mode, int depth)
{
	if (depth > 64)
		return;
	for (size_t i = 1; i < fs->n; i++) {
		int c = (int)i;

		if (fs->v[c].parent != dir || fs->v[c].gone)
			continue;
		reinherit(fs, c, &fs->v[dir].sd);
		if (fs->v[c].kind == WM_DIR && !fs->v[c].sd.protected_dacl) {
			propagate(fs, c, mode, depth + 1);
		} else if (fs->v[c].kind == WM_JUNCTION && mode == WM_PROP_FOLLOW) {
			/* The target is re-secured as if it were this child. */
			int t = wm_fs_resolve(fs, fs->v[c].target, true);

			if (t > 0 && fs->v[t].kind == WM_DIR) {
				reinherit(fs, t, &fs->v[dir].sd);
				propagate(fs, t, mode, depth + 1);
			}
		}
	}
}

int wm_fs_set(struct wm_fs *fs, int node, const struct wm_ace *aces, size_t n, bool protect,
	      enum wm_propagate mode)
{
	struct wm_node *nd;

	if (node < 0 || (size_t)node >= fs->n || n > WM_ACES_MAX)
		return -EINVAL;
	nd = &fs->v[node];
	memcpy(nd->sd.dacl, aces, n * sizeof(*aces));
	for (size_t i = 0; i < n; i++)
		nd->sd.dacl[i].flags &= ~WM_INHERITED;
	nd->sd.n_dacl = n;
	nd->sd.has_dacl = true;
	nd->sd.protected_dacl = protect;
	if (!protect && nd->parent > 0)
		wm_fs_inherited(&fs->v[nd->parent].sd, is_container(nd->kind), nd->sd.owner,
				nd->sd.dacl, &nd->sd.n_dacl);
	fs->dacl_writes++;
	if (mode != WM_PROP_NONE && is_container(nd->kind))
		propagate(fs, node, mode, 0);
	return 0;
}

bool wm_fs_can(const struct wm_fs *fs, int node, uint32_t desired, const struct wm_token *t,
	       struct wm_reading r)
{
	return wm_access(&fs->v[node].sd, t, desired, &wm_file_mapping, r);
}

/* KB 238018: DELETE on the object, or FILE_DELETE_CHILD on its parent. */
bool wm_fs_can_delete(const struct wm_fs *fs, int node, const struct wm_token *t,
		      struct wm_reading r)
{
	int p = fs->v[node].parent;

	return wm_fs_can(fs, node, WM_DELETE, t, r) ||
	       (p > 0 && wm_fs_can(fs, p, WM_FILE_DELETE_CHILD, t, r));
}

bool wm_fs_can_add(const struct wm_fs *fs, int dir, enum wm_kind kind,
		   const struct wm_token *t, struct wm_reading r)
{
	if (!is_container(fs->v[dir].kind))
		return false;
	return wm_fs_can(fs, dir, kind == WM_FILE ? WM_FILE_WRITE_DATA : WM_FILE_APPEND_DATA, t, r);
}
