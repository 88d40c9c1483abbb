/* protect_int.h - what the three parts of the protected-metadata module
 * share (contracts and limits in protect.h): the path helpers, and the
 * monitor's state, which cleanup walks from.
 *
 *   protect_plan.c     the plan: one race-safe look at the host
 *   protect_monitor.c  the create monitor (inotify, watch-then-scan)
 *   protect_cleanup.c  removing what the command created
 *
 * Every lookup in them is one component at a time, relative to a
 * descriptor, with O_NOFOLLOW: a name the sandboxed command controls is
 * never resolved through a symlink it planted, neither while planning, nor
 * while the monitor descends into new directories, nor while cleanup
 * deletes. */
#ifndef SANDPROOF_PROTECT_INT_H
#define SANDPROOF_PROTECT_INT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/types.h>

#include "protect.h"

#define WALK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)

/* a + "/" + b, without doubling the slash when a is "/".  malloc'd, NULL
 * when out of memory. */
static inline char *protect_path_join(const char *a, const char *b)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a, strcmp(a, "/") ? "/" : "", b) < 0)
		return NULL;
	return s;
}

/* Is p a proper directory prefix of t ("/r/.git" of "/r/.git/hooks")?
 * Returns the offset in t of the component after p, or 0 when it is not. */
static inline size_t protect_path_below(const char *p, const char *t)
{
	size_t n = strlen(p);

	if (n == 1 && p[0] == '/')
		return t[0] == '/' && t[1] ? 1 : 0;
	if (strncmp(p, t, n) != 0 || t[n] != '/' || !t[n + 1])
		return 0;
	return n + 1;
}

/* Make room for element n of the array *vp (capacity *cap, elements of
 * size bytes), doubling it.  0 or -ENOMEM (the array is then unchanged). */
static inline int protect_grow(void *vp, size_t *cap, size_t n, size_t size)
{
	void **v = vp;
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	nv = reallocarray(*v, ncap, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* One inotify watch.  A static node is a watch parent from a plan: it
 * existed before the run, is pinned inside the sandbox, and its fd (a dup of
 * the plan's) is kept for scans and cleanup.  A dynamic node is a directory
 * the command created on the way to a protected name: it keeps no fd (so a
 * removed directory's watch goes away with it), only its identity and the
 * path it had when it was watched, relative to its static base. */
struct mon_node {
	int wd;
	bool is_static;
	char *path; /* absolute, as of when the watch was added, spelled as
		     * the protected paths spell it (META-6) */
	char *spelled; /* dynamic: the path as looked up when it is another
			* spelling of path (a separate object, namecase.h);
			* NULL when it is path */
	int fd;     /* static: O_PATH of the directory; dynamic: -1 */
	size_t base;     /* dynamic: index of the static node it lies under */
	dev_t dev;       /* dynamic: identity of the watched directory */
	ino_t ino;
	struct namecase nc; /* static: its plan's; dynamic: its base's */
};

/* One watch entry of a plan, kept for rescans and cleanup. */
struct mon_entry {
	size_t node;  /* its static node */
	char *name;   /* first missing component */
	char *rel;    /* name [+ "/" + suffix] */
};

struct protect_mon {
	int ifd;
	struct mon_node *node;
	size_t n_node, cap_node, n_dynamic;
	struct mon_entry *ent;
	size_t n_ent, cap_ent;
	char **target; /* protected paths not fully present at plan time */
	size_t n_target, cap_target;
	char **seen;   /* violations already reported, "C/path" or "L/path" */
	size_t n_seen, cap_seen;
	/* the sink of the call in progress */
	struct protect_event *ev;
	size_t ev_max;
	int count;
	int first_lost; /* positive errno of the first LOST, for start */
	union {
		struct inotify_event align;
		char buf[64 * 1024];
	} rd;
};

/* Record a violation (CREATE, OVERFLOW, LOST) or a cleanup result in the
 * sink of the call in progress.  The same CREATE or LOST path is counted
 * once until mon_forget_seen(); when the seen set is full, paths are
 * reported again rather than dropped. */
void mon_emit(struct protect_mon *m, enum protect_ev_kind kind, int err,
	      const char *path);

/* Forget which paths were reported: a name removed may be created again,
 * and that is a new violation. */
void mon_forget_seen(struct protect_mon *m);

#endif
