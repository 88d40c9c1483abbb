/* tmpdir.c - tmpdir.h on Linux: renameat2(RENAME_NOREPLACE), one atomic
 * step. */
#include "sandproof/tmpdir.h"

#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <stdio.h>

int tmpdir_lock(int fd, int nonblock)
{
	return flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0)) < 0 ? -errno : 0;
}

int tmpdir_rename_new(int fd, const char *from, const char *to)
{
	(void)fd;
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) < 0 ? -errno : 0;
}
