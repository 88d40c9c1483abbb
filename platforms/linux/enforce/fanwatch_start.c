/* fanwatch_start.c - platform_watch_* (platform.h) on Linux: the group,
 * its marks, the unprivileged walk of directories, finish and free
 * (fanwatch.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fanwatch.h"
#include "handoff.h"

#define FW_MASK (FAN_CREATE | FAN_DELETE | FAN_RENAME | FAN_MODIFY | FAN_ATTRIB | \
		 FAN_CLOSE_WRITE | FAN_ONDIR)
#define FW_DEPTH_MAX 64

static int fw_root_open(const char *path)
{
	char buf[4096], *save = NULL, *comp;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	return fd;
}

static int fw_dir_stat(int fd, struct statx *x)
{
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, x) < 0)
		return -errno;
	return x->stx_mask & STATX_MNT_ID ? 0 : -ENOTSUP;
}

/* Unprivileged: the directory fd (obj) marked, its listing recorded, then
 * each subdirectory on the same mount (handle, parent, name) likewise. */
static int fw_walk(struct platform_watch *w, int fd, uint32_t obj, uint64_t mnt,
		   const unsigned char *fsid, int depth, uint32_t *n_dirs);

static int fw_walk_child(struct platform_watch *w, int fd, uint32_t ent, uint32_t parent,
			 uint64_t mnt, const unsigned char *fsid, int depth, uint32_t *n_dirs)
{
	const char *name = fw_name(w, w->t0[ent].name_off);
	unsigned char fid[FW_FID_MAX];
	struct statx x;
	uint32_t obj;
	int c = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), len, rc;

	if (c < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 : -errno;
	if ((rc = fw_dir_stat(c, &x)) < 0 || x.stx_mnt_id != mnt || x.stx_ino != w->t0[ent].ino) {
		close(c);
		/* a mount inside is not watched (the walk does not enter it);
		 * swapped since listed: the listing is not the start's */
		return rc < 0 ? rc : x.stx_mnt_id != mnt ? 0 : -ESTALE;
	}
	if ((len = fw_fid_at(c, "", fsid, fid)) < 0) {
		close(c);
		return len;
	}
	if ((obj = fw_obj_get(w, fid, (uint32_t)len, true)) == FW_NONE) {
		close(c);
		return -E2BIG;
	}
	if (fw_dir_of(w, obj) == FW_NONE) {
		close(c);
		return -E2BIG;
	}
	w->dirs[w->objs[obj].dir].parent = parent;
	w->dirs[w->objs[obj].dir].t0ent = ent; /* its listing entry */
	w->t0[ent].child = obj;
	return fw_walk(w, c, obj, mnt, fsid, depth + 1, n_dirs);
}

/* fd's entries into the listing of obj (getdents64 straight into the
 * watch's buffer: no stdio directory stream).  0 or -errno. */
static int fw_list(struct platform_watch *w, int fd, uint32_t obj)
{
	long n;

	w->dirs[w->objs[obj].dir].t0_first = w->n_t0;
	while ((n = syscall(SYS_getdents64, fd, w->buf, sizeof(w->buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (void *)(w->buf + off);
			unsigned char type = de->d_type;
			struct stat st;

			off += de->d_reclen;
			if (de->d_name[0] == '.' && (!de->d_name[1] ||
						     (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			if (type == DT_UNKNOWN && fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
			if (fw_t0_add(w, de->d_name, de->d_ino, type) == FW_NONE)
				return -E2BIG;
		}
	}
	w->dirs[w->objs[obj].dir].t0_count = w->n_t0 - w->dirs[w->objs[obj].dir].t0_first;
	return n < 0 ? -errno : 0;
}

static int fw_walk(struct platform_watch *w, int fd, uint32_t obj, uint64_t mnt,
		   const unsigned char *fsid, int depth, uint32_t *n_dirs)
{
	struct statx x;
	int rc = 0;

	if (++*n_dirs > FW_DIRS_MAX || depth > FW_DEPTH_MAX)
		rc = -E2BIG;
	else if (fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_INODE, FW_MASK | FAN_EVENT_ON_CHILD,
			       fd, NULL) < 0)
		rc = -errno;
	else if ((rc = fw_dir_stat(fd, &x)) == 0 && fw_dir_of(w, obj) == FW_NONE)
		rc = -E2BIG;
	else if (rc == 0) {
		w->objs[obj].flags |= FW_T0DIR | FW_ISDIR;
		w->dirs[w->objs[obj].dir].mode = x.stx_mode;
		w->dirs[w->objs[obj].dir].uid = x.stx_uid;
		w->dirs[w->objs[obj].dir].gid = x.stx_gid;
	}
	if (rc == 0)
		rc = fw_list(w, fd, obj);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	for (uint32_t i = 0, n = w->dirs[w->objs[obj].dir].t0_count; rc == 0 && i < n; i++) {
		uint32_t e = w->dirs[w->objs[obj].dir].t0_first + i;

		if (w->t0[e].dtype == DT_DIR)
			rc = fw_walk_child(w, fd, e, obj, mnt, fsid, depth, n_dirs);
	}
	close(fd);
	return rc;
}

/* Each root opened, its handle interned; marked (privileged: its file
 * system; else every directory under it).  0 or -errno with why. */
static int fw_mark_roots(struct platform_watch *w, const struct request *req, char *why,
			 size_t whylen)
{
	uint32_t n_dirs = 0;

	for (size_t i = 0; i < req->n_write_roots; i++) {
		struct fw_root *r = &w->roots[w->n_roots];
		unsigned char fsid[8], fid[FW_FID_MAX];
		struct statfs sf;
		int len, rc;

		r->path = req->write_roots[i].root;
		if ((r->fd = fw_root_open(r->path)) < 0) {
			snprintf(why, whylen, "write root %s: %s", r->path, strerror(-r->fd));
			return r->fd;
		}
		w->n_roots++;
		if (fstatfs(r->fd, &sf) < 0)
			return -errno;
		memcpy(fsid, &sf.f_fsid, 8);
		memcpy(r->fsid, fsid, 8);
		r->mnt = 0;
		{
			struct statx x;

			if ((rc = fw_dir_stat(r->fd, &x)) < 0) {
				snprintf(why, whylen, "write root %s: no mount id", r->path);
				return rc;
			}
			r->mnt = x.stx_mnt_id;
		}
		if ((len = fw_fid_at(r->fd, "", fsid, fid)) < 0) {
			snprintf(why, whylen, "write root %s: the file system gives no file handles (%s)",
				 r->path, strerror(-len));
			return len;
		}
		if ((r->obj = fw_obj_get(w, fid, (uint32_t)len, true)) == FW_NONE)
			return -E2BIG;
		if (fw_dir_of(w, r->obj) == FW_NONE)
			return -E2BIG;
		w->dirs[w->objs[r->obj].dir].t0ent = (uint32_t)i; /* a root: parent FW_NONE */
		if (w->privileged)
			rc = fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FW_MASK, r->fd,
					   NULL) < 0 ? -errno : 0;
		else
			rc = fw_walk(w, dup(r->fd), r->obj, r->mnt, fsid, 0, &n_dirs);
		if (rc < 0) {
			if (w->lost) /* a bound of the listing: it says which */
				snprintf(why, whylen, "write root %s: %s", r->path, w->lost_why);
			else if (rc == -E2BIG)
				snprintf(why, whylen, "write root %s: more directories than the watch "
					 "marks (%u, or %d levels)", r->path, FW_DIRS_MAX, FW_DEPTH_MAX);
			else
				snprintf(why, whylen, "write root %s: cannot watch: %s", r->path,
					 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The group: privileged (its own unlimited queue, filesystem marks) when
 * the initial user namespace's CAP_SYS_ADMIN allows, else unprivileged. */
static int fw_group(struct platform_watch *w, char *why, size_t whylen)
{
	unsigned flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME_TARGET;
	const char *q = getenv("SANDPROOF_REF_CHANGES_QUEUE");
	int e;

	w->fd = fanotify_init(flags | FAN_UNLIMITED_QUEUE, O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	w->privileged = w->fd >= 0;
	if (w->fd >= 0 && q && !strcmp(q, "limited")) {
		/* the tests' switch: a privileged group with the default queue,
		 * which a flood overflows */
		close(w->fd);
		w->fd = fanotify_init(flags, O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	}
	if (w->fd < 0 && errno == EPERM)
		w->fd = fanotify_init(flags, O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	if (w->fd >= 0)
		return 0;
	e = errno;
	snprintf(why, whylen, "fanotify unavailable: %s", strerror(e));
	return -e;
}

int platform_watch_start(const struct request *req, struct platform_watch **out,
			 char *why, size_t whylen)
{
	struct platform_watch *w;
	const char *drain = getenv("SANDPROOF_REF_CHANGES_DRAIN");
	int rc;

	*out = NULL;
	if (req->fs_kind != FS_RESTRICTED || req->n_write_roots > FW_ROOTS_MAX) {
		snprintf(why, whylen, "more write roots than the watch takes (%u)", FW_ROOTS_MAX);
		return -E2BIG;
	}
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->fd = -1;
	w->drain_at_end = drain && !strcmp(drain, "end");
	/* the start, coarse like the clock change times come from */
	clock_gettime(CLOCK_REALTIME_COARSE, &w->start);
	rc = fw_tab_init(w);
	if (rc == 0)
		rc = fw_group(w, why, whylen);
	if (rc == 0)
		rc = fw_mark_roots(w, req, why, whylen);
	if (rc == 0 && w->lost) {
		snprintf(why, whylen, "%s", w->lost_why);
		rc = -E2BIG;
	}
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(why, whylen, "out of memory");
		platform_watch_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int platform_watch_pollfd(const struct platform_watch *w)
{
	return w && !w->drain_at_end ? w->fd : -1;
}

void platform_watch_service(struct platform_watch *w)
{
	if (w && !w->drain_at_end)
		fw_drain(w);
}

int platform_watch_finish(struct platform_watch *w, platform_change_fn *emit, void *ctx,
			  char *why, size_t whylen)
{
	int rc;

	fw_drain(w);
	rc = fw_diff(w, emit, ctx);
	if (rc < 0)
		return rc;
	if (w->lost) {
		snprintf(why, whylen, "%s", w->lost_why);
		return 1;
	}
	snprintf(why, whylen, "%s", w->rescanned); /* how, when not the events alone */
	return 0;
}

void platform_watch_free(struct platform_watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		/* every mark off at once (no event after this), then the group
		 * ended without waiting for the mark reaper (handoff.h) */
		fanotify_mark(w->fd, FAN_MARK_FLUSH | (w->privileged ? FAN_MARK_FILESYSTEM : 0), 0,
			      AT_FDCWD, NULL);
		if (handoff_close(w->fd) < 0)
			close(w->fd);
	}
	for (size_t i = 0; i < w->n_roots; i++)
		if (w->roots[i].fd >= 0)
			close(w->roots[i].fd);
	fw_tab_free(w);
	free(w);
}
