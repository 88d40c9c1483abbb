/* runtime.h - per-workspace runtime roots: derivation, layout, stamp, lease,
 * eviction (DESIGN.md area RT, docs/CONTRACT.md RT-*).
 *
 * A runtime root is <parent>/<name>, name = the first 16 lowercase hex of
 * sha256(canonical workspace).  Beside it, in the same parent (and so out of
 * reach of a sandbox that only gets the root's subfolders):
 *   <name>.lease   flock()ed shared by every run using the root, exclusive
 *                  (non-blocking) by an evictor;
 *   <name>.stamp   what was provisioned and when it was last used:
 *                    sandproof-runtime-stamp 1
 *                    plan <64 hex: sha256 of the layout plan + workspace>
 *                    last_use <sec>.<9-digit nsec>
 *                    obj <rel> <dev> <ino> <uid> <octal st_mode>   (one per object,
 *                                                 "." = the root, then the layout)
 * Transient names in the parent: <name>.stamp.tmp.<pid>.<seq> (a stamp being
 * written) and <name>.tomb.<pid>.<seq>.<nsec> (a root being deleted).
 *
 * A stamp attests to a plan, never to an object: every acquire re-checks that
 * the objects at the root's names are still those the stamp recorded (device,
 * inode, owner, mode) and re-provisions when they are not.
 *
 * Everything here is descriptor-relative and never follows a symlink below the
 * parent.  Library functions return 0 or -errno. */
#ifndef SANDPROOF_RUNTIME_H
#define SANDPROOF_RUNTIME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUNTIME_NAME_LEN 16
#define RUNTIME_ENV_MAX 12
#define RUNTIME_REPORT_MAX 32

struct runtime_config {
	const char *parent;     /* where roots live; created 0700 when missing */
	uint64_t max_age_s;     /* evict roots last used more than this long ago */
	uint64_t max_roots;     /* then LRU until at most this many remain (the
	                         * current root counts); both literal: 0 means 0,
	                         * UINT64_MAX means no bound */
	const char *fallback_parent; /* parent of the private root used when the
	                         * derived root would overlap the workspace;
	                         * NULL: /var/tmp/sandproof-runtime-<euid> */
};

struct runtime_env {
	const char *key;        /* static string */
	char value[PATH_MAX];
};

/* One acquired root.  Owns root_fd and lease_fd (both O_CLOEXEC, so the
 * command never inherits the lease and cannot unlock it); runtime_release()
 * closes them.  Paths are host paths. */
struct runtime_root {
	char workspace[PATH_MAX];   /* canonical workspace */
	char parent[PATH_MAX];      /* canonical parent actually used */
	char name[RUNTIME_NAME_LEN + 1];
	bool private_root;          /* the fallback parent was used */
	char root[PATH_MAX];
	char tmp[PATH_MAX];         /* TMPDIR; the sandbox's /tmp */
	char cache[PATH_MAX];       /* XDG_CACHE_HOME, tool caches below it */
	char data[PATH_MAX];        /* tool homes (CARGO_HOME) */
	struct runtime_env env[RUNTIME_ENV_MAX];
	size_t n_env;
	int root_fd;                /* O_DIRECTORY of the root, for mounting by fd */
	int lease_fd;               /* holds LOCK_SH until runtime_release() */
};

struct runtime_report_entry {
	char name[64];     /* entry name in the parent (truncated) */
	char reason[96];
};

/* What an acquire or gc did.  Bounded: past RUNTIME_REPORT_MAX entries only
 * the *_total counters grow. */
struct runtime_report {
	bool reprovisioned;
	char reprovision_reason[128];
	bool dry_run;                /* evicted[] lists what would be evicted */
	struct runtime_report_entry evicted[RUNTIME_REPORT_MAX];
	size_t n_evicted, evicted_total;
	struct runtime_report_entry skipped[RUNTIME_REPORT_MAX];
	size_t n_skipped, skipped_total;
	int evict_error;             /* -errno that stopped eviction early, or 0 */
};

/* Canonical form of path: absolute (relative to the cwd), "." and ".." and
 * repeated '/' removed, symlinks resolved through the longest existing
 * ancestor and the remaining components appended lexically, so a path
 * normalises the same whether or not its last components exist yet.  A
 * dangling symlink is followed to its target.  0, -ENAMETOOLONG, -ELOOP, or
 * the -errno of a failing lookup other than ENOENT/ENOTDIR. */
int runtime_canonicalize(const char *path, char *out, size_t outlen);

/* The 16-hex root name of a canonical workspace path. */
void runtime_derive_name(const char *canonical_ws, char name[RUNTIME_NAME_LEN + 1]);

/* Set every descriptor of r to -1 (a released root). */
void runtime_root_init(struct runtime_root *r);

/* Acquire the workspace's root for one run: derive it (the fallback parent
 * when the derived root overlaps the workspace), create the parent 0700 if
 * missing (refusing one that is group/world-writable or not owned by the
 * caller: -EPERM), take the shared lease, verify the stamp against the
 * objects and re-provision on mismatch, record last use, then evict OTHER
 * roots per c (never this one; problems go into rep, never into the return
 * value).  On success *out holds the lease until runtime_release(); on
 * failure nothing is held.  rep is overwritten. */
int runtime_acquire(const struct runtime_config *c, const char *workspace,
		    struct runtime_root *out, struct runtime_report *rep);

/* Drop the lease and close the root's descriptor.  Idempotent. */
void runtime_release(struct runtime_root *r);

/* Evict roots in c->parent per c (age, then LRU down to max_roots), sparing
 * keep (a root path or name; NULL: none), delete leftover tombstones, stale
 * stamp temporaries and orphan lease/stamp files.  dry_run: lock and report,
 * change nothing.  A missing parent is nothing to do (0).  Returns -EPERM for
 * an unsafe parent, other -errno when the parent cannot be opened or read;
 * per-entry problems go into rep. */
int runtime_gc(const struct runtime_config *c, const char *keep_root_or_NULL,
	       bool dry_run, struct runtime_report *rep);

/* ---- shared by runtime.c and runtime_evict.c; not for other callers ---- */

struct runtime_stamp_obj {
	uint64_t dev, ino;
	uint32_t uid, mode;
};

#define RUNTIME_LAYOUT_MAX 16
struct runtime_stamp {
	char plan[65];
	int64_t last_sec;
	long last_nsec;
	size_t n_obj;
	struct runtime_stamp_obj obj[RUNTIME_LAYOUT_MAX];
};

/* Open the canonical directory path component by component with O_NOFOLLOW
 * (creating missing components 0700 when create) and check it is a directory
 * owned by the caller and not group/world-writable (-EPERM otherwise). */
int runtime_open_parent(const char *canonical, bool create, int *out_fd);

/* Lock <name>.lease in pfd with how (LOCK_SH, or LOCK_EX|LOCK_NB), creating
 * it 0600 when missing.  After locking, checks the locked file is still the
 * one at that name (dev+ino); LOCK_SH retries on mismatch, LOCK_EX returns
 * -ESTALE.  -EWOULDBLOCK when a non-blocking lock is refused. */
int runtime_lease_lock(int pfd, const char *name, int how, int *out_fd);

/* Read and parse <name>.stamp in pfd (regular file owned by the caller). */
int runtime_stamp_read(int pfd, const char *name, struct runtime_stamp *st);

bool runtime_name_is_root(const char *name);

/* The separator of canonical paths on this OS ('/', '\\' on Windows). */
char runtime_sep(void);

/* A fresh "<name>.<kind>.<pid>.<seq>.<nsec>" into buf. */
int runtime_unique_name(char *buf, size_t len, const char *name, const char *kind);

/* Delete name in dfd recursively without following symlinks or crossing
 * a mount point (mountid.h: a bind mount of the same file system is one):
 * a directory on another mount than dfd's, name itself included, is left
 * with its content and the delete returns -EXDEV.  ENOENT anywhere counts
 * as done. */
int runtime_remove_tree(int dfd, const char *name);

/* Evict roots in pfd other than keep (may be NULL) per c; see runtime_gc. */
int runtime_evict_others(int pfd, const struct runtime_config *c, const char *keep,
			 bool dry_run, struct runtime_report *rep);

void runtime_report_evicted(struct runtime_report *rep, const char *name, const char *reason);
void runtime_report_skipped(struct runtime_report *rep, const char *name, const char *reason);

/* `sandproof-ref gc ...` (gc_cli.c); argv[0] is "gc".  0, 1 gc failed, 2 usage. */
int gc_main(int argc, char **argv);

#endif
