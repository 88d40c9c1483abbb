/* tmpdir.c - tmpdir.h on windows.  The claim is a share mode (below),
 * since LockFileEx locks no directory.  The rename goes through the
 * claim's handle (opened as itself, FILE_FLAG_OPEN_REPARSE_POINT), refused
 * (-ELOOP) when it is of a reparse point (a junction or a symbolic link
 * put in its place) or not a directory (-ENOTDIR); that very handle is
 * renamed (SetFileInformationByHandle, FileRenameInfo, ReplaceIfExists
 * FALSE), so the object checked is the object renamed and an existing
 * name is never replaced.  A name that exists answers -EEXIST. */
#include "sandproof/tmpdir.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static wchar_t *wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(wchar_t)) : NULL;

	if (w && !MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n)) {
		free(w);
		return NULL;
	}
	for (wchar_t *c = w; c && *c; c++)
		if (*c == L'/')
			*c = L'\\';
	return w;
}

static int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS: return EEXIST;
	case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: return ENOENT;
	case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: return EACCES;
	case ERROR_NOT_SAME_DEVICE: return EXDEV;
	default: return EIO;
	}
}

/* FileRenameInfo to the full name to, refusing to replace.  NT takes the
 * name as an NT path: "\\??\\" + the DOS path. */
static int rename_handle(HANDLE h, const wchar_t *dos)
{
	wchar_t to[4096 + 8];
	size_t n;

	if (!((dos[0] && dos[1] == L':') || (dos[0] == L'\\' && dos[1] == L'\\')))
		return -EINVAL; /* a full DOS path only (X:\... or \\server\...) */
	if (dos[0] == L'\\')
		swprintf(to, sizeof(to) / sizeof(to[0]), L"\\??\\UNC%ls", dos + 1);
	else
		swprintf(to, sizeof(to) / sizeof(to[0]), L"\\??\\%ls", dos);
	n = wcslen(to);
	size_t size = sizeof(FILE_RENAME_INFO) + n * sizeof(wchar_t);
	FILE_RENAME_INFO *ri = calloc(1, size);
	int rc = 0;

	if (!ri)
		return -ENOMEM;
	ri->ReplaceIfExists = FALSE;
	ri->FileNameLength = (DWORD)(n * sizeof(wchar_t));
	memcpy(ri->FileName, to, n * sizeof(wchar_t));
	if (!SetFileInformationByHandle(h, FileRenameInfo, ri, (DWORD)size))
		rc = -errno_of(GetLastError());
	free(ri);
	return rc;
}

/* The claim: the directory's handle reopened with DELETE access and a
 * share mode without FILE_SHARE_DELETE, put in place of fd's handle.  Any
 * later opener asking for DELETE (another claim, a rename, a removal) is
 * refused with a sharing violation while fd is open; closing fd ends it. */
int tmpdir_lock(int fd, int nonblock)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd), c;
	int cfd;

	if (h == INVALID_HANDLE_VALUE)
		return -EBADF;
	for (;;) {
		c = ReOpenFile(h, DELETE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES |
			       FILE_LIST_DIRECTORY | FILE_TRAVERSE | SYNCHRONIZE,
			       FILE_SHARE_READ | FILE_SHARE_WRITE,
			       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT);
		if (c != INVALID_HANDLE_VALUE)
			break;
		if (GetLastError() != ERROR_SHARING_VIOLATION)
			return -errno_of(GetLastError());
		if (nonblock)
			return -EWOULDBLOCK;
		Sleep(10);
	}
	/* fd's own handle is replaced by the claim (same descriptor number) */
	if ((cfd = _open_osfhandle((intptr_t)c, _O_RDONLY)) < 0) {
		CloseHandle(c);
		return -EMFILE;
	}
	if (_dup2(cfd, fd) < 0) {
		_close(cfd);
		return -EBADF;
	}
	_close(cfd);
	return 0;
}

/* Reparse points refused, then renamed through the claim's own handle. */
int tmpdir_rename_new(int fd, const char *from, const char *to)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	wchar_t *wt = wide(to);
	BY_HANDLE_FILE_INFORMATION fi;
	int rc;

	(void)from;
	if (h == INVALID_HANDLE_VALUE || !wt) {
		free(wt);
		return h == INVALID_HANDLE_VALUE ? -EBADF : -EINVAL;
	}
	if (!GetFileInformationByHandle(h, &fi))
		rc = -EIO;
	else if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		rc = -ELOOP;
	else if (!(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
		rc = -ENOTDIR;
	else
		rc = rename_handle(h, wt);
	free(wt);
	return rc;
}
