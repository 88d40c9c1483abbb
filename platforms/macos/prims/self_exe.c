/* self_exe.c - prims_self_exe on macOS: dyld's path of the main executable
 * (_NSGetExecutablePath), made canonical with realpath - Homebrew links
 * bin/sandproof to its keg, and the data an installed copy reads is found
 * relative to the real file (harness/datadir.h); argv[0] is not needed.
 * macOS only: the posix-sim compiles posix/prims/self_exe.c (CMakeLists.txt). */
#include "sandproof/prims.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mach-o/dyld.h>

static char self_exe[PATH_MAX];

void prims_self_exe_init(const char *argv0)
{
	char raw[PATH_MAX];
	uint32_t size = sizeof(raw);

	(void)argv0;
	self_exe[0] = '\0';
	/* -1: the path does not fit; unknown then, never a truncated one */
	if (_NSGetExecutablePath(raw, &size) != 0)
		return;
	if (!realpath(raw, self_exe))
		self_exe[0] = '\0';
}

const char *prims_self_exe(void)
{
	return self_exe[0] == '/' ? self_exe : NULL;
}
