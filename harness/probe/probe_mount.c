/* probe_mount.c - what the mount table says about a path, from inside.
 *
 * `mountinfo PATH` reports the mount that PATH (not followed if it is a
 * symlink) lies on, as /proc/self/mountinfo describes it.  The mount is
 * found by the id statx() gives for PATH, never by matching mount points:
 * a sandbox stacks mounts on one point (its /dev over a read-only copy of
 * the host's), and only the id says which of them the process really uses.
 * An operation of the linux platform's probe (probe.h, PROBE_LINUX_OP). */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SANDPROOF_PROBE_LINUX
#define PROBE_MOUNTINFO_MAX (8u << 20) /* a table larger than this is refused */

/* The whole of /proc/self/mountinfo, NUL-terminated, malloc'd; NULL with
 * errno set.  It is read in one pass: the kernel generates it as it goes,
 * so there is no size to ask for first. */
static char *probe_mountinfo_read(void)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		int e = buf ? errno : ENOMEM;

		free(buf);
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			char *nb = cap >= PROBE_MOUNTINFO_MAX ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				errno = cap >= PROBE_MOUNTINFO_MAX ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = errno;

			close(fd);
			if (r < 0) {
				free(buf);
				errno = e;
				return NULL;
			}
			buf[len] = '\0';
			return buf;
		}
		len += (size_t)r;
	}
}

/* mountinfo escapes space, tab, newline and backslash as \ooo; decode in
 * place so the fields compare equal to the paths a scenario knows. */
static void probe_unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* One line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER_OPTIONS".  Fills res when ID is want; returns 1 then, 0 for
 * another mount, -1 for a line that does not parse. */
static int probe_mountinfo_line(char *line, unsigned long long want,
				struct probe_res *res)
{
	char *f[6], *tail[3], *save = NULL, *tok;
	int n = 0, t = 0;
	bool dash = false;

	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n < 6)
			f[n++] = tok;
		else if (!dash)
			dash = strcmp(tok, "-") == 0;
		else if (t < 3)
			tail[t++] = tok;
	}
	if (n < 6 || t < 3)
		return -1;
	if (strtoull(f[0], NULL, 10) != want)
		return 0;
	probe_unescape(f[3]);
	probe_unescape(f[4]);
	probe_unescape(tail[1]);
	probe_field_int(res, "mount_id", (long long)want);
	probe_field_int(res, "parent_id", strtoll(f[1], NULL, 10));
	probe_field_cstr(res, "mount_point", f[4]);
	probe_field_cstr(res, "root", f[3]);
	probe_field_cstr(res, "options", f[5]);
	probe_field_cstr(res, "fstype", tail[0]);
	probe_field_cstr(res, "source", tail[1]);
	probe_field_cstr(res, "super_options", tail[2]);
	return 1;
}

static void probe_op_mountinfo(struct probe_ctx *ctx, char **a, int n,
			       struct probe_res *res)
{
	struct statx stx;
	char *table, *line, *save = NULL;

	(void)ctx, (void)n;
	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, a[0], AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0) {
		probe_res_fail(res, errno, "statx");
		return;
	}
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		probe_res_fail(res, EOPNOTSUPP, "statx"); /* kernel before 5.8 */
		return;
	}
	table = probe_mountinfo_read();
	if (!table) {
		probe_res_fail(res, errno, "read");
		return;
	}
	for (line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (probe_mountinfo_line(line, stx.stx_mnt_id, res) == 1)
			break;
	if (!line)
		probe_res_fail(res, ENOENT, "mountinfo"); /* the id is not listed */
	free(table);
}

#endif

const struct probe_op probe_mount_ops[] = {
	{"mountinfo", 1, 1, "PATH", NULL, PROBE_LINUX_OP(probe_op_mountinfo)},
	{NULL, 0, 0, NULL, NULL, NULL},
};
