/* mounts_int.h - what mounts.c shares with mounts_alias.c: the state of
 * mplan_apply() in the sandbox's first process, and its lookups. */
#ifndef SANDPROOF_MOUNTS_INT_H
#define SANDPROOF_MOUNTS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "mounts.h"

#define MPLAN_MAX_TMPFS 8

struct ctx {
	int root;                      /* the new root, attached */
	dev_t ours[MPLAN_MAX_TMPFS];   /* tmpfs mounts we made: safe to mkdir in */
	size_t n_ours;
	int hide;                      /* detached tmpfs holding "d" and "f" */
	int tmp;                       /* our /tmp, made read-only at the end unless private_tmp */
	struct setup_error *err;
};

/* Fill *err (step, ":path" when given, errno, detail) and return -e. */
int mounts_fail(struct setup_error *err, const char *step, const char *path, int e,
		const char *detail);

/* path (absolute, the sandbox's view) resolved under the new root one
 * component at a time, never through a symlink: an O_PATH fd or -errno. */
int mounts_target_open(struct ctx *c, const char *path, bool is_dir);

/* In the sandbox's first process, after every other operation: the
 * MOP_ALIAS op (mounts_alias.c).  0 or -errno with c->err. */
int mounts_alias_apply(struct ctx *c, const struct mop *op);

#endif
