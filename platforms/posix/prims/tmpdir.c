/* tmpdir.c - tmpdir.h in portable POSIX calls (posix and macOS): the name is taken first
 * with mkdir (which fails when it exists), then the directory is renamed
 * onto that empty directory, which rename(2) replaces in one step.  A
 * name someone else fills in between stays theirs (-EEXIST). */
#include "sandproof/tmpdir.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int tmpdir_rename_new(const char *from, const char *to)
{
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
