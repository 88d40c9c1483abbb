/* tmpdir.c - tmpdir.h in portable POSIX calls (posix and macOS): the name is taken first
 * with mkdir (which fails when it exists), then the directory is renamed
 * onto that empty directory, which rename(2) replaces in one step.  A
 * name someone else fills in between stays theirs (-EEXIST). */
#include "sandproof/tmpdir.h"

#include <errno.h>
#include <sys/file.h>
#include <stdio.h>
#include <sys/stat.h>

int tmpdir_lock(int fd, int nonblock)
{
	return flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0)) < 0 ? -errno : 0;
}

int tmpdir_rename_new(int fd, const char *from, const char *to)
{
	(void)fd;
	if (mkdir(to, 0700) < 0)
		return -errno;
	if (rename(from, to) < 0) {
		int e = errno == ENOTEMPTY ? EEXIST : errno;

		if (e != EEXIST)
			remove(to); /* ours, still empty */
		return -e;
	}
	return 0;
}
