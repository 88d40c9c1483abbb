/* junction.c - junction.h: NTFS junctions through FSCTL_SET_REPARSE_POINT,
 * FSCTL_GET_REPARSE_POINT and FSCTL_DELETE_REPARSE_POINT on handles
 * opened with FILE_FLAG_OPEN_REPARSE_POINT (the link itself, never what it
 * points to).  Security: every change to an existing junction first reads
 * and checks the reparse point through the handle it then changes, so a
 * plain directory swapped in by someone else is refused, never altered. */
#include "junction.h"
#include "winprim_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

#ifndef ESTALE
#define ESTALE 151 /* compat/include/wincompat.h's value (force-included by CMake) */
#endif
#ifndef ERROR_CANNOT_GRANT_REQUESTED_OPLOCK
#define ERROR_CANNOT_GRANT_REQUESTED_OPLOCK 801L /* winerror.h, newer SDKs */
#endif

static DWORD last_error;

unsigned long winjct_last_error(void)
{
	return last_error;
}

int winprim_fail(DWORD e)
{
	last_error = e;
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return -ENOENT;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return -EEXIST;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return -EACCES;
	case ERROR_PRIVILEGE_NOT_HELD:
		return -EPERM;
	case ERROR_DIR_NOT_EMPTY:
		return -ENOTEMPTY;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	case ERROR_NOT_SUPPORTED:
	case ERROR_INVALID_FUNCTION:
		return -EOPNOTSUPP;
	case ERROR_NOT_A_REPARSE_POINT:
	case ERROR_REPARSE_TAG_MISMATCH:
	case ERROR_INVALID_REPARSE_DATA:
	case ERROR_INVALID_PARAMETER:
	case ERROR_INVALID_NAME:
		return -EINVAL;
	case ERROR_OPLOCK_NOT_GRANTED:
	case ERROR_CANNOT_GRANT_REQUESTED_OPLOCK:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

wchar_t *winprim_wide(const char *s)
{
	int n = s ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0) : 0;
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(*w)) : NULL;

	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		w = NULL;
	}
	return w;
}

/* The link at path itself, for reading (write false) or for changing it. */
static int open_link(const char *path, DWORD access, HANDLE *h)
{
	wchar_t *w = winprim_wide(path);

	if (!w)
		return winprim_fail(ERROR_INVALID_NAME);
	*h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			 OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
			 NULL);
	free(w);
	return *h == INVALID_HANDLE_VALUE ? winprim_fail(GetLastError()) : 0;
}

static int read_handle(HANDLE h, struct reparse_link *out)
{
	static uint8_t buf[REPARSE_MAX_SIZE];
	DWORD n = 0;

	memset(out, 0, sizeof(*out)); /* freeable whatever fails */
	if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, buf, sizeof(buf), &n, NULL))
		return winprim_fail(GetLastError());
	return reparse_decode(buf, n, out);
}

/* 0 when h is a junction, -EINVAL when it is something else. */
static int check_junction(HANDLE h)
{
	struct reparse_link l;
	int rc = read_handle(h, &l);

	if (rc == 0 && l.tag != REPARSE_TAG_MOUNT_POINT)
		rc = -EINVAL;
	reparse_link_free(&l);
	return rc;
}

static int set_target(HANDLE h, const char *target)
{
	static uint8_t buf[REPARSE_MAX_SIZE];
	size_t n = 0;
	DWORD ret = 0;
	int rc = reparse_encode_junction(target, buf, sizeof(buf), &n);

	if (rc < 0)
		return rc;
	if (!DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, buf, (DWORD)n, NULL, 0, &ret, NULL))
		return winprim_fail(GetLastError());
	return 0;
}

int winjct_create(const char *path, const char *target)
{
	size_t n;
	wchar_t *w;
	HANDLE h;
	int rc = reparse_encode_junction(target, NULL, 0, &n);

	if (rc != -ENOSPC)
		return rc < 0 ? rc : -EINVAL; /* a bad target: nothing made */
	if (!(w = winprim_wide(path)))
		return winprim_fail(ERROR_INVALID_NAME);
	if (!CreateDirectoryW(w, NULL)) {
		rc = winprim_fail(GetLastError());
		free(w);
		return rc;
	}
	rc = open_link(path, GENERIC_READ | GENERIC_WRITE, &h);
	if (rc == 0) {
		rc = set_target(h, target);
		CloseHandle(h);
	}
	if (rc < 0) {
		DWORD e = last_error;

		RemoveDirectoryW(w); /* ours, and empty: a plain directory */
		last_error = e;
	}
	free(w);
	return rc;
}

int winjct_read(const char *path, struct reparse_link *out)
{
	HANDLE h;
	int rc;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	rc = open_link(path, FILE_READ_ATTRIBUTES | SYNCHRONIZE, &h);
	if (rc < 0)
		return rc;
	rc = read_handle(h, out);
	CloseHandle(h);
	return rc;
}

int winjct_retarget(const char *path, const char *target)
{
	HANDLE h;
	int rc = open_link(path, GENERIC_READ | GENERIC_WRITE, &h);

	if (rc < 0)
		return rc;
	rc = check_junction(h);
	if (rc == 0)
		rc = set_target(h, target);
	CloseHandle(h);
	return rc;
}

int winjct_unmount(const char *path)
{
	uint8_t hdr[REPARSE_HEADER_SIZE] = {0x03, 0x00, 0x00, 0xa0}; /* tag, length 0 */
	DWORD ret = 0;
	HANDLE h;
	int rc = open_link(path, GENERIC_READ | GENERIC_WRITE, &h);

	if (rc < 0)
		return rc;
	rc = check_junction(h);
	if (rc == 0 &&
	    !DeviceIoControl(h, FSCTL_DELETE_REPARSE_POINT, hdr, sizeof(hdr), NULL, 0, &ret, NULL))
		rc = winprim_fail(GetLastError());
	CloseHandle(h);
	return rc;
}

int winjct_delete(const char *path)
{
	FILE_DISPOSITION_INFO del = {.DeleteFile = TRUE};
	HANDLE h;
	int rc = open_link(path, GENERIC_READ | DELETE, &h);

	if (rc < 0)
		return rc;
	rc = check_junction(h);
	if (rc == 0 && !SetFileInformationByHandle(h, FileDispositionInfo, &del, sizeof(del)))
		rc = winprim_fail(GetLastError());
	CloseHandle(h);
	return rc;
}

static int move_new(const wchar_t *from, const wchar_t *to)
{
	return MoveFileExW(from, to, 0) ? 0 : winprim_fail(GetLastError());
}

static int swap_wide(const wchar_t *wa, const wchar_t *wb, const wchar_t *wx)
{
	int rc = move_new(wa, wx);

	if (rc < 0)
		return rc;
	if ((rc = move_new(wb, wa)) < 0)
		return MoveFileExW(wx, wa, 0) ? rc : -ESTALE;
	if ((rc = move_new(wx, wb)) < 0)
		return MoveFileExW(wa, wb, 0) && MoveFileExW(wx, wa, 0) ? rc : -ESTALE;
	return 0;
}

int winjct_swap(const char *a, const char *b)
{
	static const char suffix[] = ".sp-swap";
	char *aside;
	wchar_t *wa, *wb, *wx;
	int rc;

	if (!a || !b)
		return -EINVAL;
	if (!(aside = malloc(strlen(a) + sizeof(suffix))))
		return -ENOMEM;
	strcpy(aside, a);
	strcat(aside, suffix);
	wa = winprim_wide(a);
	wb = winprim_wide(b);
	wx = winprim_wide(aside);
	rc = wa && wb && wx ? swap_wide(wa, wb, wx) : winprim_fail(ERROR_INVALID_NAME);
	free(aside);
	free(wa);
	free(wb);
	free(wx);
	return rc;
}
