/* tmpdir.c - tmpdir.h on windows: the CRT's rename() is MoveFileEx without
 * MOVEFILE_REPLACE_EXISTING, which never replaces an existing name: the
 * no-replace rename the header asks for, in one call (POSIX needs the
 * mkdir-then-rename of posix/prims/tmpdir.c).  A name that exists answers
 * -EEXIST, whatever error the CRT mapped it to. */
#include "sandproof/tmpdir.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int tmpdir_rename_new(const char *from, const char *to)
{
	struct stat st;

	if (rename(from, to) == 0)
		return 0;
	int e = errno;
	return stat(to, &st) == 0 ? -EEXIST : -e;
}
