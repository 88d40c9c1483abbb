/* changes.h - what a run created, modified and deleted under its write
 * roots (OUT-8, CONTRACT.md).
 *
 * Two mechanisms (CONTRACT.md OUT-8 says which a report came from,
 * "mechanism", and why the second, "fallback"):
 *  - events: the platform's event source (platform.h, platform_watch_*;
 *    Linux: fanotify) watches the write roots from before the launch and
 *    says after the release what changed, at the cost of what changed;
 *  - walk: changes_baseline() walks every write root before the command
 *    starts, changes_compare() walks them again after it ended and
 *    reports the difference.  Used when the platform has no event source
 *    or cannot watch these roots; SANDPROOF_REF_CHANGES=walk forces it,
 *    SANDPROOF_REF_CHANGES=check runs both, reports the walk's and appends
 *    one JSON line comparing the two sets to the file named by
 *    SANDPROOF_REF_CHANGES_LOG (the tests' switch).
 * The walk is by descriptor from "/": each component opened
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

struct platform_watch;
struct changes_set;

struct changes {
	/* the event source (NULL: the walk) */
	struct platform_watch *watch;
	bool check;       /* both, compared (SANDPROOF_REF_CHANGES=check) */
	struct changes_set *check_walk, *check_events;
	char fallback[192];   /* why the walk, or why the events are incomplete */
	bool walked;      /* the report is the walk's */
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

/* Start watching req's write roots, or walk them (restricted filesystem
 * only: an unrestricted run has no write roots to report on).  0, or
 * -errno (ENOMEM); a root that cannot be opened is reported as truncated,
 * never as empty. */
int changes_baseline(struct changes *c, const struct request *req);
/* Walk again (or ask the event source) and fill the report.  0 or -errno. */
int changes_compare(struct changes *c, const struct request *req);
/* During the run: the event source's descriptor to poll (-1: none), and
 * its draining when readable. */
int changes_pollfd(const struct changes *c);
void changes_service(struct changes *c);
/* The "changes" member: null without a baseline, else the object. */
void changes_write(const struct changes *c, struct jw *w);
void changes_free(struct changes *c);

#endif
