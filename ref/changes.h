/* changes.h - what a run created, modified and deleted under its write
 * roots (OUT-8, CONTRACT.md).
 *
 * changes_baseline() walks every write root before the command starts;
 * changes_compare() walks them again after it ended and reports the
 * difference.  The walk is by descriptor from "/": each component opened
 * with O_NOFOLLOW, so a symlink is listed as itself and never followed, and
 * nothing outside a write root is ever opened or listed; it stays on the
 * root's file system (a mount inside a root is listed, not entered).
 *
 * Bounded: at most CHANGES_WALK_MAX entries and CHANGES_PATH_BYTES_MAX bytes
 * of relative paths are held per baseline, directories deeper than
 * CHANGES_DEPTH_MAX below a root are not entered, and the report lists at
 * most CHANGES_LIST_MAX entries (CHANGES_LIST_BYTES of paths; the rest are
 * counted in `dropped`).  A walk that hit a bound sets `truncated`; then
 * only what is certain is reported (see changes_compare).
 *
 * Ownership: struct changes owns its memory; changes_free() releases it. */
#ifndef SANDPROOF_CHANGES_H
#define SANDPROOF_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jw.h"
#include "sandproof/request.h"

#define CHANGES_WALK_MAX 131072u
#define CHANGES_PATH_BYTES_MAX (8u * 1024 * 1024)
#define CHANGES_DEPTH_MAX 64
#define CHANGES_LIST_MAX 256u
#define CHANGES_LIST_BYTES 16384u

enum changes_op { CHANGE_CREATED, CHANGE_MODIFIED, CHANGE_DELETED };

struct changes_entry {
	uint64_t key;     /* hash of root index and relative path */
	uint64_t digest;  /* type, inode, size, mode, mtime, ctime */
	uint32_t path_off;
	uint16_t root;
	bool dir, seen;
};

struct changes_item {
	enum changes_op op;
	char *path;       /* absolute: the root, '/', the relative path */
};

struct changes {
	/* the baseline */
	struct changes_entry *v;
	size_t n, cap;
	char *paths;      /* relative paths, NUL-terminated, back to back */
	size_t paths_len, paths_cap;
	bool base_truncated;
	/* the report */
	bool present;     /* a baseline was taken: "changes" is an object */
	struct changes_item items[CHANGES_LIST_MAX];
	size_t n_items, items_bytes;
	uint64_t created, modified, deleted, dropped;
	bool truncated;
};

/* Walk req's write roots (restricted filesystem only: an unrestricted run
 * has no write roots to report on).  0, or -errno (ENOMEM); a root that
 * cannot be opened is reported as truncated, never as empty. */
int changes_baseline(struct changes *c, const struct request *req);
/* Walk again and fill the report.  0 or -errno. */
int changes_compare(struct changes *c, const struct request *req);
/* The "changes" member: null without a baseline, else the object. */
void changes_write(const struct changes *c, struct jw *w);
void changes_free(struct changes *c);

#endif
