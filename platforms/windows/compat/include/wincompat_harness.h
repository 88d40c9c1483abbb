/* wincompat_harness.h - the POSIX calls the harness (the .c files of harness/) uses
 * beyond the core's, for the mingw-w64 build only (compat/README.md has
 * their semantics; harness_fs.c and harness_proc.c implement them).  Like
 * wincompat.h, every translation unit of the windows build gets it
 * (-include, CMakeLists.txt), so harness/ stays POSIX code.
 * Errors: -1 (or NULL) and errno, never a Win32 error code. */
#ifndef SANDPROOF_WINCOMPAT_HARNESS_H
#define SANDPROOF_WINCOMPAT_HARNESS_H

#include "wincompat.h"

char *wincompat_realpath(const char *path, char *resolved);
char *wincompat_mkdtemp(char *templ);
int wincompat_symlink(const char *target, const char *linkpath);
pid_t wincompat_getppid(void);
int wincompat_setenv(const char *name, const char *value, int overwrite);
int wincompat_unsetenv(const char *name);
#define realpath wincompat_realpath
#define mkdtemp wincompat_mkdtemp
#define symlink wincompat_symlink
#define getppid wincompat_getppid
#define setenv wincompat_setenv
#define unsetenv wincompat_unsetenv

#endif
