/* self_exe.c - prims_self_exe on a system that cannot name a process's
 * executable (posix; macOS compiles it too): argv[0] resolved once, at
 * startup, before anything changes the working directory - a path when it
 * holds a '/', else the first executable of that name on PATH, as a shell
 * would have found it.  Canonical (realpath); unknown (NULL) otherwise. */
#include "sandproof/prims.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char self_exe[PATH_MAX];

static void self_exe_set(const char *path)
{
	char real[PATH_MAX];

	if (access(path, X_OK) == 0 && realpath(path, real))
		snprintf(self_exe, sizeof(self_exe), "%s", real);
}

void prims_self_exe_init(const char *argv0)
{
	const char *path = getenv("PATH");

	self_exe[0] = '\0';
	if (!argv0 || !*argv0)
		return;
	if (strchr(argv0, '/')) {
		self_exe_set(argv0);
		return;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; !self_exe[0]; p++) {
		size_t n = strcspn(p, ":");
		char cand[PATH_MAX];

		if (snprintf(cand, sizeof(cand), "%.*s/%s", (int)(n ? n : 1), n ? p : ".",
			     argv0) < (int)sizeof(cand))
			self_exe_set(cand);
		p += n;
		if (!*p)
			break;
	}
}

const char *prims_self_exe(void)
{
	return self_exe[0] ? self_exe : NULL;
}
