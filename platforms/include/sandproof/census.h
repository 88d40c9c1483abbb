/* census.h - residue census: what exists now, and what is new since before.
 *
 * A census is a snapshot of five kinds of things a run may leave behind:
 *   CENSUS_PROC    live descendants of the caller (zombies included),
 *   CENSUS_MARKED  processes, anywhere, whose cmdline contains a marker,
 *   CENSUS_MOUNT   lines of /proc/self/mountinfo whose mount point lies at
 *                  or under one of the given prefixes (the caller's view),
 *   CENSUS_LOCK    locks of /proc/locks on files under a directory,
 *   CENSUS_FILE    files under the given temp directories.
 * Every item has a key (its identity: a process is pid + start time, so a
 * recycled pid is a new process) and a text line for evidence.
 * census_diff() lists the items of "after" whose key "before" lacks.
 *
 * The census only reads /proc and the file system; it never follows a
 * symlink while walking a directory.  It is a heuristic witness, not a
 * security boundary: a process may die or a file appear between reads.
 *
 * census_procs()/census_top() are the process table that proc.c uses to
 * find and kill descendants. */
#ifndef SANDPROOF_CENSUS_H
#define SANDPROOF_CENSUS_H

#include <stddef.h>
#include <sys/types.h>

enum census_kind {
	CENSUS_PROC,
	CENSUS_MARKED,
	CENSUS_MOUNT,
	CENSUS_LOCK,
	CENSUS_FILE,
};

struct census_item {
	enum census_kind kind;
	char *key;  /* identity within its kind (owned) */
	char *text; /* one human-readable line (owned) */
};

struct census {
	struct census_item *items; /* owned; census_free() releases */
	size_t n, cap;
};

struct census_opts {
	const char *marker;                 /* NULL or "": no marker search */
	const char *const *mount_prefixes;  /* NULL-terminated list, or NULL */
	const char *lock_dir;               /* NULL: no lock census */
	const char *const *temp_dirs;       /* NULL-terminated list, or NULL */
};

/* Caps that keep a census of a runaway run bounded; past a cap one item
 * with key "truncated" and kind of the cut list is added. */
#define CENSUS_MAX_FILES 100000
#define CENSUS_MAX_DEPTH 64

/* Take a snapshot into *out (which is overwritten; census_free() it even
 * on failure).  0 or -errno (-EINVAL for NULL arguments, -ENOMEM). */
int census_take(const struct census_opts *o, struct census *out);

/* *added = the items of after (copied) whose kind+key is not in before.
 * 0 or -errno; *added is then to be census_free()d. */
int census_diff(const struct census *before, const struct census *after,
		struct census *added);

void census_free(struct census *c);

/* "proc", "marked", "mount", "lock", "file". */
const char *census_kind_name(enum census_kind k);

/* ---- the process table -------------------------------------------------- */

struct census_proc {
	pid_t pid, ppid, pgid, sid;
	unsigned long long start; /* start time in clock ticks since boot */
	char state;               /* 'R', 'S', 'Z', ... */
	char comm[32];
};

/* Every process visible in /proc, sorted by pid, into *out (malloc'd, the
 * caller frees).  0 or -errno. */
int census_procs(struct census_proc **out, size_t *n);

/* Read one process's stat line.  0, -ESRCH when it is gone, -errno. */
int census_proc_read(pid_t pid, struct census_proc *p);

/* The entry of pid in v (sorted by pid), or NULL. */
const struct census_proc *census_find(const struct census_proc *v, size_t n,
				      pid_t pid);

/* For v[i]: the pid of its ancestor (or itself) whose parent is `self`,
 * or 0 when v[i] does not descend from self.  v sorted by pid. */
pid_t census_top(const struct census_proc *v, size_t n, size_t i, pid_t self);

#endif
