/* wenf.c - errors and string conversion shared by the Windows backend's
 * pieces (winenf.h).  No policy here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "winenf.h"

#ifndef ERROR_ELEVATION_REQUIRED
#define ERROR_ELEVATION_REQUIRED 740L /* winerror.h; absent from some mingw headers */
#endif

int wenf_fail(struct wenf_error *e, const char *step, const char *path, int err,
	      const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -err;
	if (path)
		snprintf(e->step, sizeof(e->step), "%s:%s", step, path);
	else
		snprintf(e->step, sizeof(e->step), "%s", step);
	e->err = err;
	e->detail[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
		va_end(ap);
	}
	return -err;
}

int wenf_errno(DWORD code)
{
	switch (code) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return EACCES;
	case ERROR_PRIVILEGE_NOT_HELD:
	case ERROR_ELEVATION_REQUIRED:
		return EPERM;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_INVALID_PARAMETER:
	case ERROR_INVALID_NAME:
		return EINVAL;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
		return EOPNOTSUPP;
	case ERROR_CANT_ACCESS_FILE:
	case ERROR_CANT_RESOLVE_FILENAME:
		return ELOOP;
	default:
		return EIO;
	}
}

wchar_t *wenf_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = malloc((size_t)n * sizeof(*w));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

char *wenf_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return NULL;
	s = malloc((size_t)n);
	if (s && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	return s;
}

bool wenf_under_wine(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}
