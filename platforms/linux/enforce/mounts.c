/* mounts.c - see mounts.h. */
#include "mounts.h"
#include "mounts_int.h"
#include "policy_path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The device of the tmpfs holding the empty covers; set by mplan_apply()
 * in the sandbox's pid 1 and inherited by the command's process. */
static dev_t hide_dev;
static bool hide_dev_set;

static int fail(struct setup_error *err, const char *step, const char *path,
		int e, const char *detail)
{
	snprintf(err->step, sizeof(err->step), "%s%s%s", step, path ? ":" : "",
		 path ? path : "");
	err->err = e;
	snprintf(err->detail, sizeof(err->detail), "%s", detail ? detail : "");
	return -e;
}

/* The one way a host policy path is resolved: no symlink anywhere on the
 * way (RESOLVE_NO_SYMLINKS), so a component swapped for a link can only
 * make resolution fail, never redirect it. */
static int path_pin(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

int mplan_add(struct mplan *p, enum mop_kind kind, const char *path, bool is_dir)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct mop *nv = realloc(p->ops, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->ops = nv;
		p->cap = cap;
	}
	p->ops[p->n].path = strdup(path);
	if (!p->ops[p->n].path)
		return -ENOMEM;
	p->ops[p->n].kind = kind;
	p->ops[p->n].is_dir = is_dir;
	p->n++;
	return 0;
}

void mplan_free(struct mplan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->ops[i].path);
	free(p->ops);
	free(p->tmp_source);
	strv_free(&p->writable_dirs);
	strv_free(&p->deny_read);
	memset(p, 0, sizeof(*p));
}

/* Check a host path now (the child checks again, for real).  Returns 1 if
 * it exists (*is_dir set), 0 if it does not, -errno with *err otherwise. */
static int probe(const char *what, const char *path, bool *is_dir,
		 struct setup_error *err)
{
	struct stat st;
	int fd = path_pin(path);

	if (fd == -ENOENT)
		return 0;
	if (fd == -ELOOP)
		return fail(err, what, path, ELOOP,
			    "policy path is or passes through a symlink; refusing to follow it");
	if (fd < 0)
		return fail(err, what, path, -fd, "cannot resolve policy path");
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return fail(err, what, path, e, "cannot stat policy path");
	}
	close(fd);
	*is_dir = S_ISDIR(st.st_mode);
	return 1;
}

static int add_checked(struct mplan *p, const struct request *req,
		       enum mop_kind kind, const char *what, const char *path,
		       struct setup_error *err)
{
	bool is_dir = false;
	int rc = probe(what, path, &is_dir, err);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		/* Absent and inside a write root: the command could create it
		 * and the promise would not hold, so refuse.  Absent elsewhere:
		 * nothing can create it (read-only), nothing to do. */
		if (kind != MOP_HIDE && policy_in_write_root(req, path))
			return fail(err, what, path, ENOENT,
				    "must exist: it lies in a write root and could be created");
		return 0;
	}
	if (kind == MOP_WRITE && !is_dir)
		return fail(err, what, path, ENOTDIR, "a write root must be a directory");
	rc = mplan_add(p, kind, path, is_dir);
	if (rc == 0 && kind == MOP_WRITE)
		rc = strv_push(&p->writable_dirs, path);
	return rc < 0 && rc == -ENOMEM ? fail(err, "plan", NULL, ENOMEM, NULL) : rc;
}

/* A read-only path, and inside a write root the pins that keep it in its
 * place (FS-2): one there was checked to exist by add_checked(). */
static int add_read_only(struct mplan *p, const struct request *req, const char *what,
			 const char *path, struct setup_error *err)
{
	int rc = add_checked(p, req, MOP_RO, what, path, err);

	if (rc == 0 && policy_in_write_root(req, path) &&
	    mplan_pin_ancestors(p, req, path) < 0)
		rc = fail(err, "plan", NULL, ENOMEM, NULL);
	return rc;
}

static bool any_beneath(const struct mplan *p, const char *dir)
{
	for (size_t i = 0; i < p->n; i++)
		if (policy_beneath(dir, p->ops[i].path))
			return true;
	return false;
}

int mplan_build(const struct request *req, struct mplan *p, struct setup_error *err)
{
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->restricted = req->fs_kind == FS_RESTRICTED;
	if (!p->restricted)
		return 0;
	if (req->read_roots.n != 1 || strcmp(req->read_roots.v[0], "/") != 0)
		return fail(err, "read_roots", NULL, EOPNOTSUPP,
			    "only read_roots [\"/\"] is supported by this runner");
	p->private_tmp = req->allow_temp;
	if (p->private_tmp)
		rc = strv_push(&p->writable_dirs, "/tmp");
	for (size_t i = 0; rc == 0 && i < req->n_write_roots; i++)
		rc = add_checked(p, req, MOP_WRITE, "write_root",
				 req->write_roots[i].root, err);
	for (size_t i = 0; rc == 0 && i < req->n_write_roots; i++) {
		const struct strv *ro = &req->write_roots[i].read_only_subpaths;

		for (size_t k = 0; rc == 0 && k < ro->n; k++)
			rc = add_read_only(p, req, "read_only_subpath", ro->v[k], err);
	}
	for (size_t i = 0; rc == 0 && i < req->deny_write.n; i++)
		rc = add_read_only(p, req, "deny_write", req->deny_write.v[i], err);
	if (rc == 0 && req->temp_dir && p->private_tmp && !any_beneath(p, "/tmp")) {
		/* Serve the runtime root's tmp/ as /tmp.  Only when no bind
		 * lands beneath /tmp: their mount points would have to be made
		 * inside that host folder.  Otherwise /tmp stays a private tmpfs
		 * and TMPDIR points at the folder where it is bound. */
		p->tmp_source = strdup(req->temp_dir);
		if (!p->tmp_source)
			rc = fail(err, "plan", NULL, ENOMEM, NULL);
	}
	return rc;
}

/* Late additions (deny_read) go after protected metadata: see platform. */
int mplan_add_hides(struct mplan *p, const struct request *req, struct setup_error *err);

int mplan_add_hides(struct mplan *p, const struct request *req, struct setup_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < req->deny_read.n; i++) {
		/* The host's /tmp is never visible (it is replaced), except
		 * through a write root beneath it. */
		if (policy_beneath("/tmp", req->deny_read.v[i]) &&
		    !policy_in_write_root(req, req->deny_read.v[i]))
			continue;
		rc = add_checked(p, req, MOP_HIDE, "deny_read", req->deny_read.v[i], err);
		if (rc == 0 && strv_push(&p->deny_read, req->deny_read.v[i]) < 0)
			rc = fail(err, "plan", NULL, ENOMEM, NULL);
	}
	return rc;
}

/* ---- the child side ------------------------------------------------------ */


/* The tmpfs options bounding a private temp file system of `bytes`
 * (tmp_bytes, shm_bytes: LIM-4): its size, and one inode per 4 KiB of it
 * (at least 1024), so empty files cannot hold kernel memory past it. */
static void tmpfs_bounds(uint64_t bytes, char size[32], char inodes[32])
{
	uint64_t n = bytes / 4096 < 1024 ? 1024 : bytes / 4096;

	snprintf(size, 32, "%llu", (unsigned long long)bytes);
	snprintf(inodes, 32, "%llu", (unsigned long long)n);
}

static int tmpfs_new(struct ctx *c, const char *mode, const char *size,
		     const char *inodes, unsigned attrs)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), m;
	struct stat st;

	if (fs < 0)
		return fail(c->err, "tmpfs", NULL, errno, "fsopen");
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0 ||
	    (size && fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) < 0) ||
	    (inodes && fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", inodes, 0) < 0) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		int e = errno;

		close(fs);
		return fail(c->err, "tmpfs", NULL, e, "fsconfig");
	}
	m = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	close(fs);
	if (m < 0)
		return fail(c->err, "tmpfs", NULL, errno, "fsmount");
	if (fstat(m, &st) == 0 && c->n_ours < MPLAN_MAX_TMPFS)
		c->ours[c->n_ours++] = st.st_dev;
	return m;
}

static bool ours(const struct ctx *c, int fd)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC || fstat(fd, &st) < 0)
		return false;
	for (size_t i = 0; i < c->n_ours; i++)
		if (c->ours[i] == st.st_dev)
			return true;
	return false;
}

/* Resolve path (absolute, sandbox view) under the new root, component by
 * component without following symlinks.  A missing component is created
 * only inside a tmpfs of ours (a mount point for a bind on top of it);
 * anywhere else a missing target means the host changed under us. */
static int target_open(struct ctx *c, const char *path, bool is_dir)
{
	char buf[4096], *save = NULL, *comp, *next;
	int cur = dup(c->root);

	if (cur < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%s", path);
	for (comp = strtok_r(buf, "/", &save); comp; comp = next) {
		int fd;
		struct stat st;

		next = strtok_r(NULL, "/", &save);
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && ours(c, cur)) {
			int rc = (next || is_dir) ? mkdirat(cur, comp, 0755) : -1;

			if (!next && !is_dir) {
				int f = openat(cur, comp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

				rc = f < 0 ? -1 : close(f);
			}
			if (rc < 0) {
				rc = -errno;
				close(cur);
				return rc;
			}
			fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		close(cur);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode) ||
		    (next && !S_ISDIR(st.st_mode))) {
			close(fd);
			return -ELOOP;
		}
		cur = fd;
	}
	return cur;
}

int mounts_target_open(struct ctx *c, const char *path, bool is_dir)
{
	return target_open(c, path, is_dir);
}

int mounts_fail(struct setup_error *err, const char *step, const char *path, int e,
		const char *detail)
{
	return fail(err, step, path, e, detail);
}

static int attach(struct ctx *c, int tree, const char *path, bool is_dir,
		  int src, const char *what)
{
	struct stat a, b;
	int t = target_open(c, path, is_dir), rc = 0;

	if (t < 0)
		return fail(c->err, what, path, -t, "cannot resolve the mount target in the new root");
	/* Identity: the place we mount on must be the object we pinned (or a
	 * fresh mount point of ours).  Anything else is a swap. */
	if (src >= 0 && !ours(c, t) &&
	    (fstat(src, &a) < 0 || fstat(t, &b) < 0 || a.st_dev != b.st_dev ||
	     a.st_ino != b.st_ino))
		rc = fail(c->err, what, path, ESTALE,
			  "the path changed during setup (swap detected); refusing");
	else if (move_mount(tree, "", t, "", MOVE_MOUNT_F_EMPTY_PATH |
						   MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = fail(c->err, what, path, errno, "move_mount");
	close(t);
	return rc;
}

static int set_attrs(int tree, unsigned set)
{
	struct mount_attr a = {.attr_set = set};

	return mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0
		? -errno : 0;
}

static const char *op_step(enum mop_kind k)
{
	switch (k) {
	case MOP_WRITE: return "mount_write";
	case MOP_RO: return "mount_ro";
	case MOP_PIN: return "mount_pin";
	case MOP_ALIAS: return "mount_alias";
	default: return "mount_hide";
	}
}

/* Resolve a policy path once, to a descriptor; everything after uses it.
 * Returns the fd, -ENOENT for a hide target that is gone (nothing to hide),
 * or -errno with c->err filled. */
static int op_pin(struct ctx *c, const struct mop *op)
{
	const char *step = op_step(op->kind);
	int src = path_pin(op->path);
	struct stat st;

	if (src == -ENOENT && op->kind == MOP_HIDE)
		return -ENOENT;
	if (src < 0) {
		fail(c->err, step, op->path, -src,
		     src == -ELOOP ? "policy path is or passes through a symlink" :
				     "cannot resolve policy path");
		return src == -ENOENT ? -ESTALE : src;
	}
	if (fstat(src, &st) < 0 || (S_ISDIR(st.st_mode) != op->is_dir)) {
		close(src);
		return fail(c->err, step, op->path, ESTALE,
			    "the path changed type during setup; refusing");
	}
	return src;
}

static int apply_op(struct ctx *c, const struct mop *op, int src)
{
	const char *step = op_step(op->kind);
	int tree, rc;

	if (op->kind == MOP_HIDE)
		tree = open_tree(c->hide, op->is_dir ? "d" : "f",
				 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	else
		tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
						  AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		return fail(c->err, step, op->path, errno, "open_tree");
	rc = set_attrs(tree, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				     (op->kind == MOP_RO || op->kind == MOP_HIDE ?
				      MOUNT_ATTR_RDONLY : 0));
	if (rc < 0)
		rc = fail(c->err, step, op->path, -rc, "mount_setattr");
	else
		rc = attach(c, tree, op->path, op->is_dir, src, step);
	close(tree);
	return rc;
}

static int bind_node(struct ctx *c, int devfd, const char *name)
{
	char host[64];
	int tree, t, rc = 0;

	snprintf(host, sizeof(host), "/dev/%s", name);
	tree = open_tree(AT_FDCWD, host, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return fail(c->err, "dev", host, errno, "open_tree");
	t = openat(devfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
	if (t >= 0) {
		close(t);
		t = openat(devfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (t < 0)
		rc = fail(c->err, "dev", host, errno, "mount point");
	else if (move_mount(tree, "", t, "", MOVE_MOUNT_F_EMPTY_PATH |
						   MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = fail(c->err, "dev", host, errno, "move_mount");
	if (t >= 0)
		close(t);
	close(tree);
	return rc;
}

/* A minimal /dev: a tmpfs holding the harmless nodes (bound from the host),
 * pts and shm mount points and the usual links; read-only once built. */
static int dev_build(struct ctx *c)
{
	static const char *const nodes[] = {"null", "zero", "full", "random",
					    "urandom", "tty", NULL};
	static const char *const links[][2] = {
		{"ptmx", "pts/ptmx"}, {"fd", "/proc/self/fd"},
		{"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
		{"stderr", "/proc/self/fd/2"},
	};
	int m = tmpfs_new(c, "0755", "64k", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC), rc;

	if (m < 0)
		return m;
	for (size_t i = 0; nodes[i]; i++)
		if ((rc = bind_node(c, m, nodes[i])) < 0)
			goto out;
	if (mkdirat(m, "pts", 0755) < 0 || mkdirat(m, "shm", 01777) < 0) {
		rc = fail(c->err, "dev", NULL, errno, "mkdir");
		goto out;
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][1], m, links[i][0]) < 0) {
			rc = fail(c->err, "dev", links[i][0], errno, "symlink");
			goto out;
		}
	rc = attach(c, m, "/dev", true, -1, "dev");
out:
	close(m);
	return rc;
}

/* /tmp is always a tmpfs of ours, never the host's: writable when the
 * request allows temp, else made read-only once the mount points for write
 * roots beneath /tmp exist. */
static int tmp_build(struct ctx *c, bool writable, int tmp_src, uint64_t bytes)
{
	char size[32], inodes[32];
	int m, rc;

	if (tmp_src >= 0) {
		m = open_tree(tmp_src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
						   AT_EMPTY_PATH);
		if (m < 0)
			return fail(c->err, "tmp", NULL, errno, "open_tree runtime tmp/");
		rc = set_attrs(m, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (rc == 0)
			rc = attach(c, m, "/tmp", true, -1, "tmp");
		else
			rc = fail(c->err, "tmp", NULL, -rc, "mount_setattr");
		close(m);
		return rc;
	}
	tmpfs_bounds(bytes, size, inodes);
	m = tmpfs_new(c, writable ? "1777" : "0755", bytes ? size : NULL, bytes ? inodes : NULL,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);

	if (m < 0)
		return m;
	rc = attach(c, m, "/tmp", true, -1, "tmp");
	if (rc < 0)
		close(m);
	else
		c->tmp = m;
	return rc;
}

static int hide_build(struct ctx *c)
{
	int m = tmpfs_new(c, "0755", "16k", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				MOUNT_ATTR_NOEXEC), f;

	if (m < 0)
		return m;
	f = openat(m, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	if (mkdirat(m, "d", 0) < 0 || f < 0) {
		if (f >= 0)
			close(f);
		close(m);
		return fail(c->err, "mount_hide", NULL, errno, "empty objects");
	}
	close(f);
	c->hide = m;
	{
		struct stat st;

		if (fstat(m, &st) == 0) {
			hide_dev = st.st_dev;
			hide_dev_set = true;
		}
	}
	return 0;
}

static int after_pivot(const struct mplan *p, struct setup_error *err)
{
	char opts[128] = "mode=1777";

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return fail(err, "proc", NULL, errno, "mount a fresh /proc");
	if (!p->restricted)
		return 0;
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") < 0)
		return fail(err, "dev", "/dev/pts", errno, "mount devpts");
	if (p->shm_size) {
		char size[32], inodes[32];

		tmpfs_bounds(p->shm_size, size, inodes);
		snprintf(opts, sizeof(opts), "mode=1777,size=%s,nr_inodes=%s", size, inodes);
	}
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return fail(err, "dev", "/dev/shm", errno, "mount shm");
	if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
					       MS_NOEXEC, NULL) < 0)
		return fail(err, "dev", NULL, errno, "make /dev read-only");
	return 0;
}

int mplan_verify_hidden(const struct mplan *p, struct setup_error *err)
{
	for (size_t i = 0; i < p->deny_read.n; i++) {
		const char *path = p->deny_read.v[i];
		struct stat st;

		if (lstat(path, &st) < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			return fail(err, "deny_read", path, errno, "cannot verify the cover");
		}
		if (!hide_dev_set || st.st_dev != hide_dev)
			return fail(err, "deny_read", path, ESTALE,
				    "the path appeared or changed during setup and is not covered; refusing");
	}
	return 0;
}

int mplan_apply(const struct mplan *p, struct setup_error *err)
{
	struct ctx c = {.root = -1, .hide = -1, .tmp = -1, .err = err};
	int rc = 0, *src = NULL, tmp_src = -1;
	size_t pinned = 0;

	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail(err, "mount_private", NULL, errno, NULL);
	if (!p->restricted)
		return after_pivot(p, err);

	/* Every policy path is resolved here, once, before the first mount
	 * changes what any name means. */
	src = calloc(p->n ? p->n : 1, sizeof(*src));
	if (!src)
		return fail(err, "plan", NULL, ENOMEM, NULL);
	for (pinned = 0; pinned < p->n; pinned++) {
		src[pinned] = op_pin(&c, &p->ops[pinned]);
		if (src[pinned] < 0 && src[pinned] != -ENOENT) {
			rc = src[pinned];
			goto out;
		}
	}

	if (p->tmp_source && (tmp_src = path_pin(p->tmp_source)) < 0) {
		rc = fail(err, "tmp", p->tmp_source, -tmp_src, "cannot resolve the runtime tmp/");
		goto out;
	}

	/* The new root: a recursive, read-only, nosuid copy of the host's. */
	c.root = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
						 AT_RECURSIVE);
	if (c.root < 0)
		return fail(err, "mount_root", NULL, errno, "open_tree /");
	rc = set_attrs(c.root, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID);
	if (rc < 0) {
		rc = fail(err, "mount_root", NULL, -rc, "mount_setattr read-only");
		goto out;
	}
	/* Attach it on /tmp of our private namespace only to make it a
	 * mount point we can pivot into; the host's /tmp is not touched. */
	if (move_mount(c.root, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		rc = fail(err, "mount_root", NULL, errno, "move_mount");
		goto out;
	}
	if ((rc = dev_build(&c)) < 0 || (rc = tmp_build(&c, p->private_tmp, tmp_src, p->tmp_size)) < 0 ||
	    (rc = hide_build(&c)) < 0)
		goto out;
	for (size_t i = 0; i < p->n; i++)
		if (src[i] >= 0 && (rc = p->ops[i].kind == MOP_ALIAS
					 ? mounts_alias_apply(&c, &p->ops[i])
					 : apply_op(&c, &p->ops[i], src[i])) < 0)
			goto out;
	if (!p->private_tmp && c.tmp >= 0) {
		struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY};

		if (mount_setattr(c.tmp, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0) {
			rc = fail(err, "tmp", NULL, errno, "make /tmp read-only");
			goto out;
		}
	}
	if (fchdir(c.root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		rc = fail(err, "pivot_root", NULL, errno, NULL);
		goto out;
	}
	rc = after_pivot(p, err);
out:
	for (size_t i = 0; i < pinned; i++)
		if (src[i] >= 0)
			close(src[i]);
	free(src);
	if (tmp_src >= 0)
		close(tmp_src);
	if (c.tmp >= 0)
		close(c.tmp);
	if (c.hide >= 0)
		close(c.hide);
	if (c.root >= 0)
		close(c.root);
	return rc;
}
