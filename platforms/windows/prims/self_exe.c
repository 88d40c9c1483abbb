/* self_exe.c - prims_self_exe on windows: the module file name of this
 * executable (GetModuleFileNameW), as UTF-8 with '/' separators (what the
 * harness splits a path at); argv[0] is not needed. */
#include "sandproof/prims.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

static char self_exe[4096 * 3];

void prims_self_exe_init(const char *argv0)
{
	wchar_t w[4096];
	DWORD n = GetModuleFileNameW(NULL, w, 4096);

	(void)argv0;
	if (n == 0 || n >= 4096 ||
	    !WideCharToMultiByte(CP_UTF8, 0, w, -1, self_exe, sizeof(self_exe), NULL, NULL))
		self_exe[0] = 0;
	for (char *c = self_exe; *c; c++)
		if (*c == '\\')
			*c = '/';
}

const char *prims_self_exe(void)
{
	return self_exe[0] ? self_exe : NULL;
}
