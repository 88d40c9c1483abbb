/* mounts_alias.c - the other spellings of a mounted path (META-6, FS-2,
 * FS-3; contract in mounts.h, mplan_add_aliases).
 *
 * Why: a FUSE daemon may match names case-insensitively (exfat-fuse does)
 * while the kernel's dentry cache compares bytes, so `.GIT` is a dentry and
 * an inode of its own, reaching the same directory on the volume as `.git`.
 * A bind mount sits on one dentry: without more, `.GIT/HOOKS/pre-commit`
 * lands in the read-only `.git/hooks`, and `mv .GIT x` moves the pinned
 * `.git`.  So each other spelling the volume finds is given the tree
 * mounted at the path, cloned as built (read-only binds, pins and covers
 * beneath it included): under any spelling the sandbox sees the one mount
 * tree, the same inodes, and a mount point that cannot be renamed.  Where
 * the kernel itself folds names (vfat, exFAT, casefold directories) every
 * spelling is the one dentry and the mount already holds it: the child
 * tells the two apart by the mount a spelling resolves to. */
#include "mounts_int.h"
#include "namecase.h"
#include "policy_path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spellings of one component at most (10 letters), over a whole plan, and
 * the mounts they add (each spelling gets a copy of the whole tree at its
 * path: `.GIT` holds `.git`'s read-only binds and their spellings too): a
 * bound on what one run may add to the sandbox, refused past it. */
#define ALIAS_COMP_MAX 1024
#define ALIAS_PLAN_MAX 4096
#define ALIAS_MOUNTS_MAX 8192

/* ---- the plan (the runner, on the host) ---------------------------------- */

static int alias_fail(struct setup_error *err, const char *path, int e, const char *detail)
{
	snprintf(err->step, sizeof(err->step), "names:%s", path);
	err->err = e;
	snprintf(err->detail, sizeof(err->detail), "%s", detail);
	return -e;
}

/* The outermost write root strictly above path, or NULL. */
static const char *alias_anchor(const struct request *req, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < req->n_write_roots; i++) {
		const char *r = req->write_roots[i].root;

		if (strcmp(r, path) != 0 && policy_beneath(r, path) &&
		    (!best || strlen(r) < strlen(best)))
			best = r;
	}
	return best;
}

static bool alias_has(const struct mplan *p, const char *path, bool alias)
{
	for (size_t i = 0; i < p->n; i++)
		if ((p->ops[i].kind == MOP_ALIAS) == alias && strcmp(p->ops[i].path, path) == 0)
			return true;
	return false;
}

static unsigned alias_count(const char *comp)
{
	unsigned n = 0;

	for (; *comp; comp++)
		n += (*comp | 0x20) >= 'a' && (*comp | 0x20) <= 'z';
	return n >= 31 ? UINT32_MAX : (1u << n) - 1;
}

struct alias_plan {
	struct mplan *p;
	struct namecase_cache *nc;
	struct setup_error *err;
	unsigned spellings;
};

/* The prefix of path ending at end (its last component comp), whose
 * directory dir is resolved without symlinks: a MOP_ALIAS when dir's volume
 * gives comp's spellings objects of their own.  leaf: the prefix is path
 * itself (of type is_dir); inside: path lies in a write root, so a prefix
 * with nothing mounted may be pinned. */
static int alias_prefix(struct alias_plan *a, const char *dir, const char *prefix,
			const char *comp, bool leaf, bool is_dir, bool inside)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	char why[256];
	struct namecase nc;
	int fd, rc;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0)
		return alias_fail(a->err, dir, errno, "cannot resolve the directory of a policy path");
	rc = namecase_probe_name(a->nc, fd, dir, comp, &nc, why, sizeof(why));
	close(fd);
	if (rc == 0 && nc.fold)
		rc = namecase_check(&nc, dir, comp, why, sizeof(why));
	if (rc < 0)
		return alias_fail(a->err, prefix, -rc, why);
	if (!nc.fold)
		return 0;
	if (!leaf && !inside)
		return alias_fail(a->err, prefix, EOPNOTSUPP, "an ancestor of a path to hide, outside "
				  "the write roots, on a volume that folds case and keeps each spelling "
				  "an object of its own: its spellings cannot all be covered");
	a->spellings += alias_count(comp);
	if (alias_count(comp) > ALIAS_COMP_MAX || a->spellings > ALIAS_PLAN_MAX)
		return alias_fail(a->err, prefix, E2BIG, "too many spellings to cover on a volume "
				  "that folds case and keeps each spelling an object of its own");
	if (!leaf && !alias_has(a->p, prefix, false) &&
	    mplan_add(a->p, MOP_PIN, prefix, true) < 0)
		return alias_fail(a->err, prefix, ENOMEM, "out of memory");
	if (!alias_has(a->p, prefix, true) && mplan_add(a->p, MOP_ALIAS, prefix, is_dir) < 0)
		return alias_fail(a->err, prefix, ENOMEM, "out of memory");
	return 0;
}

/* Every component of path below anchor ("/" outside the write roots). */
static int alias_path(struct alias_plan *a, const char *path, bool is_dir, const char *anchor,
		      bool inside)
{
	size_t start = strcmp(anchor, "/") == 0 ? 0 : strlen(anchor), len = strlen(path);
	char *buf = strdup(path), *dir = strdup(path);
	int rc = 0;

	if (!buf || !dir) {
		free(buf);
		free(dir);
		return alias_fail(a->err, path, ENOMEM, "out of memory");
	}
	for (size_t i = start + 1; rc == 0 && i <= len; i++) {
		size_t c;

		if (path[i] != '/' && path[i] != '\0')
			continue;
		buf[i] = '\0';
		for (c = i; c > 0 && buf[c - 1] != '/'; c--)
			;
		snprintf(dir, len + 1, "%.*s", c > 1 ? (int)(c - 1) : 1, buf);
		rc = alias_prefix(a, dir, buf, buf + c, i == len, i == len ? is_dir : true, inside);
		buf[i] = path[i];
	}
	free(buf);
	free(dir);
	return rc;
}

/* The mounts the tree at path will hold once built: its own, one per
 * operation beneath it, and each alias beneath it once per spelling with
 * the tree at that alias's path.  Saturates at ALIAS_MOUNTS_MAX + 1. */
static uint64_t alias_tree(const struct mplan *p, const char *path)
{
	uint64_t n = 1;

	for (size_t i = 0; i < p->n && n <= ALIAS_MOUNTS_MAX; i++) {
		const struct mop *q = &p->ops[i];

		if (strcmp(q->path, path) == 0 || !policy_beneath(path, q->path))
			continue;
		if (q->kind != MOP_ALIAS)
			n += 1;
		else
			n += (uint64_t)alias_count(strrchr(q->path, '/') + 1) * alias_tree(p, q->path);
	}
	return n;
}

static int alias_budget(const struct mplan *p, struct setup_error *err)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->n && n <= ALIAS_MOUNTS_MAX; i++)
		if (p->ops[i].kind == MOP_ALIAS)
			n += (uint64_t)alias_count(strrchr(p->ops[i].path, '/') + 1) *
			     alias_tree(p, p->ops[i].path);
	if (n <= ALIAS_MOUNTS_MAX)
		return 0;
	return alias_fail(err, "(plan)", E2BIG, "covering every spelling on a volume that folds "
			  "case and keeps each spelling an object of its own would take more than "
			  "8192 mounts");
}

int mplan_add_aliases(struct mplan *p, const struct request *req,
		      struct namecase_cache *nc, struct setup_error *err)
{
	struct alias_plan a = {.p = p, .nc = nc, .err = err};
	size_t n0 = p->n;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n0; i++) {
		const char *anchor = alias_anchor(req, p->ops[i].path);
		enum mop_kind kind = p->ops[i].kind;
		bool is_dir = p->ops[i].is_dir;
		char *path;

		/* Outside the write roots the sandbox sees the host
		 * read-only: only a cover has something to keep there. */
		if (kind == MOP_ALIAS || (!anchor && kind != MOP_HIDE))
			continue;
		path = strdup(p->ops[i].path); /* p->ops moves as ops are added */
		if (!path)
			return alias_fail(err, p->ops[i].path, ENOMEM, "out of memory");
		rc = alias_path(&a, path, is_dir, anchor ? anchor : "/", anchor != NULL);
		free(path);
	}
	return rc < 0 ? rc : alias_budget(p, err);
}

/* ---- applying it (the sandbox's first process) --------------------------- */

struct alias_apply {
	struct ctx *c;
	const struct mop *op;
	const char *comp;
	int dfd, pfd;       /* the path's directory, the path (its top mount) */
	uint64_t mnt;       /* the mount the path resolves to */
	struct stat st;     /* and its object */
};

static int alias_mnt(int fd, uint64_t *mnt)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) < 0)
		return -errno;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return -ENOSYS;
	*mnt = sx.stx_mnt_id;
	return 0;
}

/* Setup fails naming the path; 1 stops namecase_spellings(). */
static int alias_err(struct alias_apply *a, int e, const char *detail)
{
	mounts_fail(a->c->err, "mount_alias", a->op->path, e, detail);
	return 1;
}

/* One spelling s: if the volume finds it but it resolves beside the path's
 * mount (an object of its own), the path's tree is cloned onto it. */
static int alias_one(void *vctx, const char *s)
{
	struct alias_apply *a = vctx;
	struct stat st;
	uint64_t mnt;
	int fd, tree, rc;

	if (strcmp(s, a->comp) == 0)
		return 0;
	fd = openat(a->dfd, s, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : alias_err(a, errno, "cannot look up a spelling");
	rc = fstat(fd, &st) < 0 ? -errno : alias_mnt(fd, &mnt);
	if (rc == 0 && mnt == a->mnt)
		rc = 1; /* the kernel matched it: the mount holds it */
	else if (rc == 0 && (st.st_mode & S_IFMT) != (a->st.st_mode & S_IFMT))
		rc = -ESTALE;
	if (rc != 0) {
		close(fd);
		return rc > 0 ? 0 : alias_err(a, -rc, rc == -ESTALE ? "a spelling is another type "
					      "of object (changed during setup?)" : "statx");
	}
	tree = open_tree(a->pfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
					    AT_RECURSIVE);
	if (tree < 0)
		rc = -errno;
	else if (move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = -errno;
	if (tree >= 0)
		close(tree);
	close(fd);
	return rc < 0 ? alias_err(a, -rc, "cannot mount the path's tree on another spelling") : 0;
}

int mounts_alias_apply(struct ctx *c, const struct mop *op)
{
	struct alias_apply a = {.c = c, .op = op, .dfd = -1, .pfd = -1};
	const char *slash = strrchr(op->path, '/');
	char *dir = slash ? strndup(op->path, slash != op->path ? (size_t)(slash - op->path) : 1)
			  : NULL;
	int rc;

	if (!dir)
		return mounts_fail(c->err, "mount_alias", op->path, ENOMEM, NULL);
	a.comp = slash + 1;
	a.dfd = mounts_target_open(c, dir, true);
	a.pfd = mounts_target_open(c, op->path, op->is_dir);
	free(dir);
	rc = a.dfd < 0 ? a.dfd : a.pfd < 0 ? a.pfd : 0;
	if (rc < 0)
		rc = mounts_fail(c->err, "mount_alias", op->path, -rc,
				 "cannot resolve the path in the new root");
	else if ((rc = fstat(a.pfd, &a.st) < 0 ? -errno : alias_mnt(a.pfd, &a.mnt)) < 0)
		rc = mounts_fail(c->err, "mount_alias", op->path, -rc, "statx");
	else if ((rc = namecase_spellings(a.comp, ALIAS_COMP_MAX + 1, alias_one, &a)) > 0)
		rc = -c->err->err;
	else if (rc < 0)
		rc = mounts_fail(c->err, "mount_alias", op->path, -rc, "too many spellings");
	if (a.dfd >= 0)
		close(a.dfd);
	if (a.pfd >= 0)
		close(a.pfd);
	return rc;
}
