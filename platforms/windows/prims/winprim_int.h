/* winprim_int.h - what junction.c and oplock.c share (windows build only). */
#ifndef SANDPROOF_WINPRIM_INT_H
#define SANDPROOF_WINPRIM_INT_H

#include <windows.h>

/* UTF-8 to a new wide string, or NULL (invalid UTF-8, no memory). */
wchar_t *winprim_wide(const char *s);

/* Record e as the last Win32 error and return its -errno. */
int winprim_fail(DWORD e);

#endif
