/* mounts.h - the filesystem view of the sandbox: plan, then apply.
 *
 * mplan_build() runs in the runner before anything is started and turns a
 * validated request into an ordered list of mount operations (a pure
 * function of the request and of what exists on the host).  mplan_apply()
 * runs in the sandbox's first process, inside its new user and mount
 * namespaces, and carries the list out.
 *
 * Race safety (SWAP-*): every host path is resolved exactly once, to an
 * O_PATH descriptor, with RESOLVE_NO_SYMLINKS; the mount is cloned from that
 * descriptor (open_tree) and attached with move_mount.  The place it is
 * attached is looked up again inside the new root, and its identity (device
 * and inode) must equal the pinned source, so a directory swapped between
 * the two lookups makes setup fail instead of moving a writable bind. */
#ifndef SANDPROOF_MOUNTS_H
#define SANDPROOF_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandproof/platform.h"
#include "sandproof/request.h"

enum mop_kind {
	MOP_WRITE, /* bind the host directory read-write at the same path */
	MOP_RO,    /* bind the host path read-only at the same path */
	MOP_PIN,   /* bind a directory onto itself: it cannot be renamed or removed */
	MOP_HIDE,  /* cover the path with an empty, unreadable object */
	MOP_ALIAS, /* every other spelling of the path's last component that
		    * the volume finds but the kernel keeps as an object of
		    * its own (FUSE that folds case, META-6): the path's mount
		    * tree, as built, cloned onto it (mounts_alias.c) */
};

struct mop {
	enum mop_kind kind;
	char *path;
	bool is_dir;
};

struct mplan {
	bool restricted;  /* false: only a fresh /proc, the host's view otherwise */
	bool private_tmp; /* writable /tmp (else an empty, read-only tmpfs) */
	char *tmp_source; /* when set, /tmp is this host directory (the runtime
			   * root's tmp/) bound read-write, not a tmpfs */
	uint64_t tmp_size, shm_size; /* bytes of the /tmp and /dev/shm tmpfs, 0:
				      * the kernel's default (limits_plan.c sets them) */
	struct mop *ops;
	size_t n, cap;
	struct strv writable_dirs; /* for Landlock: every directory writes may go beneath */
	struct strv deny_read;     /* every deny_read path the sandbox could see,
				    * present at plan time or not (verified last) */
};

/* Build the plan.  Paths that must exist (write roots, read-only subpaths
 * and deny-write paths inside a write root) are checked here so a missing one
 * is a clear setup error before anything starts.  0 or -errno with *err. */
int mplan_build(const struct request *req, struct mplan *p, struct setup_error *err);

/* Add an operation (used for protected metadata and runtime roots). */
int mplan_add(struct mplan *p, enum mop_kind kind, const char *path, bool is_dir);

/* FS-2 (mounts_order.c): pin every existing directory between the deepest
 * write root holding path and path (none when no write root holds it).
 * 0 or -ENOMEM. */
int mplan_pin_ancestors(struct mplan *p, const struct request *req, const char *path);

/* META-6, FS-2, FS-3 (mounts_alias.c): on a volume that folds case while
 * the kernel gives each spelling an object of its own (FUSE), a mount holds
 * one spelling only, so `.GIT/HOOKS` would pass beside the read-only
 * `.git/hooks`.  For every operation inside a write root, and every cover
 * outside one, each component whose directory is such a volume gets a
 * MOP_ALIAS (and, when nothing is mounted there yet, a pin, so the child
 * can tell a spelling the kernel matched from one it did not).  How a
 * directory matches names is decided through nc (namecase.h).  0, or
 * -errno with err: a volume whose spellings cannot all be covered (a
 * folding this runner does not list, a name not ASCII, too many
 * spellings) is refused. */
struct namecase_cache;
int mplan_add_aliases(struct mplan *p, const struct request *req,
		      struct namecase_cache *nc, struct setup_error *err);

/* Put the operations in the order mplan_apply() must follow: write roots
 * and pins, then read-only binds, then covers, each shallowest first, then
 * aliases, deepest first (mounts_order.c says why).  Call once the plan is
 * complete. */
void mplan_order(struct mplan *p);

/* In the sandbox's first process, after the uid/gid maps are written.
 * Ends with the new root pivoted in, /proc, /dev and /tmp mounted.
 * 0 or -errno with *err naming the step. */
int mplan_apply(const struct mplan *p, struct setup_error *err);

/* In the command's process, after mplan_apply() in its pid 1 and before
 * execve: every deny_read path must now be either absent or our empty
 * cover.  A path that appeared, or whose cover ended up on a renamed-away
 * object, while setup ran would otherwise be readable: refuse (ESTALE). */
int mplan_verify_hidden(const struct mplan *p, struct setup_error *err);

void mplan_free(struct mplan *p);

#endif
