/* fanwatch_int.h - shared by the comparison's files (fanwatch_diff.c,
 * fanwatch_names.c, fanwatch_links.c), nobody else. */
#ifndef SANDPROOF_FANWATCH_INT_H
#define SANDPROOF_FANWATCH_INT_H

#include <limits.h>
#include <sys/stat.h>

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

/* The directory entry of obj, or NULL when it has none. */
static inline struct fw_dir *fw_dirp(const struct platform_watch *w, uint32_t obj)
{
	return obj != FW_NONE && w->objs[obj].dir != FW_NONE ? &w->dirs[w->objs[obj].dir] : NULL;
}

/* fanwatch_names.c: the names one directory is looked at by, and string
 * vectors. */
int fw_strcmp(const void *a, const void *b);
int fw_names_add(struct fw_names *n, const char *s);
void fw_names_free(struct fw_names *n);
void fw_names_unique(struct fw_names *n);
int fw_names_list(struct fw_names *n, int fd);
int fw_names_slots(struct fw_diff *d, struct fw_names *n, uint32_t a);
int fw_names_routes(struct fw_diff *d, struct fw_names *n, const char *rel);
int fw_strv_add(char ***v, size_t *n, size_t *cap, const char *s);
void fw_strv_free(char **v, size_t n);

/* fanwatch_links.c: the routes to directories with events, and the other
 * names of objects whose link count changed or which were written. */
int fw_routes(struct fw_diff *d, size_t ri);
void fw_links_candidates(struct fw_diff *d);
void fw_links_find(struct fw_diff *d, size_t ri);

/* fanwatch_diff.c, for the others */
void fw_emit(struct fw_diff *d, enum platform_change op);
const char *fw_rel(const struct fw_diff *d);
int fw_live_open(struct fw_diff *d, uint32_t obj);
int fw_open_child(struct fw_diff *d, int b, const char *name);
/* ino's other names are modified too (0: unknown, nothing) */
void fw_ino_note(struct fw_diff *d, uint64_t ino);

#endif
