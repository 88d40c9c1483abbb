/* probe_fs.c - file system and mount operations of the probe.
 *
 * The probe is the attacker: it follows symlinks like any ordinary program
 * would, so a sandbox that lets a planted symlink redirect a write is caught
 * writing through it.  stat alone uses lstat, to observe links themselves. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#ifdef SANDPROOF_PROBE_LINUX
#include <sys/mount.h>
#include <sys/syscall.h>
#endif
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <stdio.h> /* renamex_np, RENAME_SWAP */
#endif

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static void probe_put_text(const char *path, const char *text, int flags,
			   struct probe_res *res)
{
	size_t n = strlen(text);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	int rc;

	if (fd < 0) {
		probe_res_fail(res, errno, "open");
		return;
	}
	rc = probe_write_all(fd, text, n);
	if (rc < 0) {
		probe_res_fail(res, -rc, "write");
		close(fd);
		return;
	}
	if (close(fd) < 0) {
		probe_res_fail(res, errno, "close");
		return;
	}
	probe_field_int(res, "bytes", (long long)n);
}

static void probe_op_write(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	(void)ctx, (void)n;
	probe_put_text(a[0], a[1], O_TRUNC, res);
}

static void probe_op_append(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	(void)ctx, (void)n;
	probe_put_text(a[0], a[1], O_APPEND, res);
}

/* Reports the first PROBE_DATA_MAX bytes and whether more followed. */
static void probe_op_read(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	static char buf[PROBE_DATA_MAX + 1];
	size_t got = 0;
	int fd;

	(void)ctx, (void)n;
	fd = open(a[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		probe_res_fail(res, errno, "open");
		return;
	}
	while (got < sizeof(buf)) {
		ssize_t r = read(fd, buf + got, sizeof(buf) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			probe_res_fail(res, errno, "read");
			close(fd);
			return;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	probe_field_str(res, "data", buf, got > PROBE_DATA_MAX ? PROBE_DATA_MAX : got);
	probe_field_int(res, "bytes", (long long)(got > PROBE_DATA_MAX ? PROBE_DATA_MAX : got));
	probe_field_bool(res, "truncated", got > PROBE_DATA_MAX);
}

static void probe_op_mkdir(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	(void)ctx, (void)n;
	if (mkdir(a[0], 0755) < 0)
		probe_res_fail(res, errno, NULL);
}

static void probe_op_rename(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	(void)ctx, (void)n;
	if (rename(a[0], a[1]) < 0)
		probe_res_fail(res, errno, NULL);
}

/* Through syscall(2): the glibc wrapper is too recent for some libcs. */
#ifdef SANDPROOF_PROBE_LINUX
static void probe_op_rename_exchange(struct probe_ctx *ctx, char **a, int n,
				     struct probe_res *res)
{
	(void)ctx, (void)n;
	if (syscall(SYS_renameat2, AT_FDCWD, a[0], AT_FDCWD, a[1],
		    RENAME_EXCHANGE) < 0)
		probe_res_fail(res, errno, NULL);
}

#elif defined(__APPLE__)
/* macOS: renamex_np(RENAME_SWAP), the same atomic exchange. */
static void probe_op_rename_exchange(struct probe_ctx *ctx, char **a, int n,
				     struct probe_res *res)
{
	(void)ctx, (void)n;
	if (renamex_np(a[0], a[1], RENAME_SWAP) < 0)
		probe_res_fail(res, errno, NULL);
}

#endif

static void probe_op_symlink(struct probe_ctx *ctx, char **a, int n,
			     struct probe_res *res)
{
	(void)ctx, (void)n;
	if (symlink(a[0], a[1]) < 0)
		probe_res_fail(res, errno, NULL);
}

static void probe_op_link(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	(void)ctx, (void)n;
	if (link(a[0], a[1]) < 0)
		probe_res_fail(res, errno, NULL);
}

static void probe_op_unlink(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	(void)ctx, (void)n;
	if (unlink(a[0]) < 0)
		probe_res_fail(res, errno, NULL);
}

static void probe_op_rmdir(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	(void)ctx, (void)n;
	if (rmdir(a[0]) < 0)
		probe_res_fail(res, errno, NULL);
}

static const char *probe_type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "chr";
	case S_IFBLK: return "blk";
	default: return "unknown";
	}
}

static void probe_op_stat(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	struct stat st;
	char mode[8];

	(void)ctx, (void)n;
	if (lstat(a[0], &st) < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	snprintf(mode, sizeof(mode), "%04o", (unsigned)(st.st_mode & 07777));
	probe_field_cstr(res, "type", probe_type_name(st.st_mode));
	probe_field_cstr(res, "mode", mode);
	probe_field_int(res, "uid", (long long)st.st_uid);
	probe_field_int(res, "gid", (long long)st.st_gid);
	probe_field_int(res, "size", (long long)st.st_size);
	probe_field_int(res, "nlink", (long long)st.st_nlink);
	probe_field_int(res, "ino", (long long)st.st_ino);
	probe_field_int(res, "dev", (long long)st.st_dev);
	if (S_ISLNK(st.st_mode)) {
		static char target[PROBE_DATA_MAX];
		ssize_t t = readlink(a[0], target, sizeof(target));

		if (t >= 0)
			probe_field_str(res, "target", target, (size_t)t);
	}
}

/* Clearing MS_RDONLY on a bind mount is how a sandboxed process would make
 * a read-only root writable again. */
#ifdef SANDPROOF_PROBE_LINUX
static void probe_op_remount(struct probe_ctx *ctx, char **a, int n,
			     struct probe_res *res)
{
	(void)ctx, (void)n;
	if (mount(NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL) < 0)
		probe_res_fail(res, errno, NULL);
}

/* MNT_DETACH: the strongest form, which also succeeds on a busy mount. */
static void probe_op_umount(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	(void)ctx, (void)n;
	if (umount2(a[0], MNT_DETACH) < 0)
		probe_res_fail(res, errno, NULL);
}

#endif

const struct probe_op probe_fs_ops[] = {
	{"write", 2, 2, "PATH TEXT", NULL, probe_op_write},
	{"append", 2, 2, "PATH TEXT", NULL, probe_op_append},
	{"read", 1, 1, "PATH", NULL, probe_op_read},
	{"mkdir", 1, 1, "PATH", NULL, probe_op_mkdir},
	{"rename", 2, 2, "FROM TO", NULL, probe_op_rename},
#if defined(SANDPROOF_PROBE_LINUX) || defined(__APPLE__)
	{"rename_exchange", 2, 2, "A B", NULL, probe_op_rename_exchange},
#else
	{"rename_exchange", 2, 2, "A B", NULL, probe_op_unsupported},
#endif
	{"symlink", 2, 2, "TARGET PATH", NULL, probe_op_symlink},
	{"link", 2, 2, "EXISTING NEW", NULL, probe_op_link},
	{"unlink", 1, 1, "PATH", NULL, probe_op_unlink},
	{"rmdir", 1, 1, "PATH", NULL, probe_op_rmdir},
	{"stat", 1, 1, "PATH", NULL, probe_op_stat},
	{"remount", 1, 1, "PATH", NULL, PROBE_LINUX_OP(probe_op_remount)},
	{"umount", 1, 1, "PATH", NULL, PROBE_LINUX_OP(probe_op_umount)},
	{NULL, 0, 0, NULL, NULL, NULL},
};
