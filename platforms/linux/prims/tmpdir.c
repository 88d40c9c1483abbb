/* tmpdir.c - tmpdir.h on Linux: renameat2(RENAME_NOREPLACE), one atomic
 * step. */
#include "sandproof/tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

int tmpdir_rename_new(const char *from, const char *to)
{
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) < 0 ? -errno : 0;
}
