/* probe_open.c - the probe's opens with chosen flags, its chmod, and the
 * anonymous file linked into a name (O_TMPFILE): the file operations whose
 * effect is in how they open, not in what they write.
 *
 * Like every op of the probe they follow symlinks unless told otherwise
 * (the `nofollow` flag): the probe is the attacker. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_PATH
#define O_PATH 0
#endif

/* The flag words of `open`: access mode words set O_ACCMODE, the rest are
 * or-ed.  A word a platform lacks (O_PATH, O_TMPFILE outside Linux) is
 * refused at validation, never opened as something weaker. */
struct probe_oflag {
	const char *word;
	int flag;
	int accmode; /* 1: an access mode (O_RDONLY, O_WRONLY, O_RDWR) */
};

static const struct probe_oflag probe_oflags[] = {
	{"rdonly", O_RDONLY, 1},	  {"wronly", O_WRONLY, 1},     {"rdwr", O_RDWR, 1},
	{"creat", O_CREAT, 0},		  {"excl", O_EXCL, 0},	       {"trunc", O_TRUNC, 0},
	{"append", O_APPEND, 0},	  {"nofollow", O_NOFOLLOW, 0}, {"directory", O_DIRECTORY, 0},
	{"noctty", O_NOCTTY, 0},
#ifdef SANDPROOF_PROBE_LINUX
	{"path", O_PATH, 0},
#endif
	{NULL, 0, 0},
};

/* FLAGS (a comma-separated list of words above) as open(2) flags; -1 and
 * the unknown word in *bad when a word is not known here. */
static int probe_parse_oflags(const char *s, const char **bad, size_t *badlen)
{
	int flags = O_RDONLY;

	while (*s) {
		size_t n = strcspn(s, ",");
		const struct probe_oflag *f = probe_oflags;

		while (f->word && !(strlen(f->word) == n && strncmp(f->word, s, n) == 0))
			f++;
		if (!f->word || n == 0) {
			*bad = s, *badlen = n;
			return -1;
		}
		flags = f->accmode ? (flags & ~O_ACCMODE) | f->flag : flags | f->flag;
		s += n + (s[n] == ',');
	}
	return flags;
}

static int probe_check_open(char **a, int n, char *msg, size_t len)
{
	const char *bad = "";
	size_t badlen = 0;

	(void)n;
	if (probe_parse_oflags(a[1], &bad, &badlen) < 0)
		return probe_check_msg(msg, len, "open: unknown flag \"%.*s\" in \"%s\"", (int)badlen,
				       bad, a[1]);
	return 0;
}

/* open(PATH, FLAGS, 0644), then close: O_CREAT makes, O_TRUNC empties,
 * and either is the whole effect; nothing is written. */
static void probe_op_open(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	const char *bad;
	size_t badlen;
	int fd = open(a[0], probe_parse_oflags(a[1], &bad, &badlen) | O_CLOEXEC, 0644);

	(void)ctx, (void)n;
	if (fd < 0) {
		probe_res_fail(res, errno, "open");
		return;
	}
	if (close(fd) < 0)
		probe_res_fail(res, errno, "close");
}

static int probe_check_mode(char **a, int n, char *msg, size_t len)
{
	char *end;
	long v;

	(void)n;
	errno = 0;
	v = strtol(a[1], &end, 8);
	if (errno || end == a[1] || *end || v < 0 || v > 07777)
		return probe_check_msg(msg, len, "MODE must be octal 0..7777, not \"%s\"", a[1]);
	return 0;
}

/* chmod(PATH, MODE): follows a symlink, as chmod(1) does. */
static void probe_op_chmod(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	if (chmod(a[0], (mode_t)strtol(a[1], NULL, 8)) < 0)
		probe_res_fail(res, errno, NULL);
}

#if defined(SANDPROOF_PROBE_LINUX) && defined(O_TMPFILE)
/* An anonymous file made in DIR (O_TMPFILE), TEXT written, then given the
 * name NEW through /proc/self/fd (linkat AT_SYMLINK_FOLLOW: no capability
 * needed, unlike AT_EMPTY_PATH).  The file never had a name until the
 * link, so a sandbox that judges creations by name sees one appear whole;
 * the link is refused across mounts (EXDEV). */
static void probe_op_tmpfile_link(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	char fdpath[64];
	int fd = open(a[0], O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	int rc;

	(void)ctx, (void)n;
	if (fd < 0) {
		probe_res_fail(res, errno, "open");
		return;
	}
	rc = probe_write_all(fd, a[2], strlen(a[2]));
	if (rc < 0) {
		probe_res_fail(res, -rc, "write");
		close(fd);
		return;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, fdpath, AT_FDCWD, a[1], AT_SYMLINK_FOLLOW) < 0)
		probe_res_fail(res, errno, "link");
	close(fd);
}
#endif

const struct probe_op probe_open_ops[] = {
	{"open", 2, 2, "PATH FLAGS", probe_check_open, probe_op_open},
	{"chmod", 2, 2, "PATH MODE", probe_check_mode, probe_op_chmod},
#if defined(SANDPROOF_PROBE_LINUX) && defined(O_TMPFILE)
	{"tmpfile_link", 3, 3, "DIR NEW TEXT", NULL, probe_op_tmpfile_link},
#else
	{"tmpfile_link", 3, 3, "DIR NEW TEXT", NULL, probe_op_unsupported},
#endif
	{NULL, 0, 0, NULL, NULL, NULL},
};
