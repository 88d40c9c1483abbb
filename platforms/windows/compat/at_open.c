/* at_open.c - opening relative to a directory descriptor: openat, open.
 *
 * A true openat: a name relative to a directory descriptor is opened by
 * NtCreateFile with OBJECT_ATTRIBUTES.RootDirectory = that directory's
 * handle, so the lookup starts at the directory the caller holds, whatever
 * its path has become since (never path concatenation).  NT does not
 * interpret "." or ".." in a relative name: "." components are dropped
 * (an empty name reopens the directory itself), a ".." component is
 * refused with EINVAL.  An absolute name, or AT_FDCWD, goes through
 * CreateFileW (the current directory and drive, as the CRT resolves them:
 * "/x" is x at the root of the current drive).
 *
 * O_NOFOLLOW / AT_SYMLINK_NOFOLLOW: the last component is opened as itself
 * (FILE_OPEN_REPARSE_POINT / FILE_FLAG_OPEN_REPARSE_POINT) and, when it is
 * a reparse point (a junction, a symbolic link, any other tag), closed and
 * refused with ELOOP.  Security: a runtime root's eviction must never
 * descend a junction; intermediate components are followed, as POSIX
 * O_NOFOLLOW follows them (the core opens one component at a time).
 *
 * Sharing: read, write and delete shared, so others may rename or delete
 * what we hold open, as on POSIX. */
#include "wincompat_int.h"

#include <stdarg.h>

#define WC_SHARE (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

int wc_is_reparse(HANDLE h)
{
	FILE_ATTRIBUTE_TAG_INFO t;

	if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &t, sizeof(t))) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	return (t.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
}

/* The NT form of a relative name: "." components dropped, ".." refused. */
static wchar_t *wc_rel_name(const char *path)
{
	wchar_t *w = wc_wide(path, 1), *o = w;

	if (!w)
		return NULL;
	for (wchar_t *p = w; *p;) {
		wchar_t *e = wcschr(p, L'\\');
		size_t n = e ? (size_t)(e - p) : wcslen(p);

		if (n == 2 && p[0] == L'.' && p[1] == L'.') {
			free(w);
			errno = EINVAL;
			return NULL;
		}
		if (n > 1 || (n == 1 && p[0] != L'.')) {
			if (o != w)
				*o++ = L'\\';
			memmove(o, p, n * sizeof(wchar_t));
			o += n;
		}
		p += n + (e != NULL);
	}
	*o = 0;
	return w;
}

static int wc_open_rel(HANDLE dir, const char *path, ACCESS_MASK access, ULONG disp,
		       ULONG options, HANDLE *out)
{
	wchar_t *w = wc_rel_name(path);
	UNICODE_STRING us;
	OBJECT_ATTRIBUTES oa;
	IO_STATUS_BLOCK io;
	NTSTATUS st;

	if (!w)
		return -1;
	us.Buffer = w;
	us.Length = (USHORT)(wcslen(w) * sizeof(wchar_t));
	us.MaximumLength = us.Length;
	InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, dir, NULL);
	st = NtCreateFile(out, access | SYNCHRONIZE, &oa, &io, NULL, FILE_ATTRIBUTE_NORMAL,
			  WC_SHARE, disp, options | FILE_SYNCHRONOUS_IO_NONALERT, NULL, 0);
	free(w);
	if (!NT_SUCCESS(st)) {
		errno = wc_errno_nt(st);
		return -1;
	}
	return 0;
}

static int wc_open_abs(const char *path, ACCESS_MASK access, ULONG disp, ULONG options,
		       HANDLE *out)
{
	static const DWORD cdisp[] = {[FILE_OPEN] = OPEN_EXISTING, [FILE_CREATE] = CREATE_NEW,
				      [FILE_OPEN_IF] = OPEN_ALWAYS};
	wchar_t *w = wc_wide(path, 0);
	DWORD fl = FILE_FLAG_BACKUP_SEMANTICS;

	if (!w)
		return -1;
	if (options & FILE_OPEN_REPARSE_POINT)
		fl |= FILE_FLAG_OPEN_REPARSE_POINT;
	*out = CreateFileW(w, access | SYNCHRONIZE, WC_SHARE, NULL, cdisp[disp], fl, NULL);
	free(w);
	if (*out == INVALID_HANDLE_VALUE) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	/* CreateFileW opens a directory or a file alike: FILE_DIRECTORY_FILE
	 * and FILE_NON_DIRECTORY_FILE are checked here. */
	BY_HANDLE_FILE_INFORMATION i;
	if (options & (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE) &&
	    GetFileInformationByHandle(*out, &i)) {
		int isdir = (i.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
		if ((options & FILE_DIRECTORY_FILE) && !isdir) {
			CloseHandle(*out);
			errno = ENOTDIR;
			return -1;
		}
		if ((options & FILE_NON_DIRECTORY_FILE) && isdir) {
			CloseHandle(*out);
			errno = EISDIR;
			return -1;
		}
	}
	return 0;
}

int wc_open_at(int dirfd, const char *path, ACCESS_MASK access, ULONG disp, ULONG options,
	       int nofollow, HANDLE *out)
{
	int abs = path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':');
	int rc;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	if (nofollow)
		options |= FILE_OPEN_REPARSE_POINT;
	if (abs || dirfd == AT_FDCWD) {
		rc = wc_open_abs(path, access, disp, options, out);
	} else {
		HANDLE dir = wc_handle(dirfd);
		if (dir == INVALID_HANDLE_VALUE)
			return -1;
		rc = wc_open_rel(dir, path, access, disp, options, out);
	}
	if (rc < 0 || !nofollow)
		return rc;
	int rp = wc_is_reparse(*out);
	if (rp != 0) {
		CloseHandle(*out);
		if (rp > 0)
			errno = ELOOP;
		return -1;
	}
	return 0;
}

/* O_* to NT access, disposition and options. */
static void wc_nt_flags(int flags, ACCESS_MASK *acc, ULONG *disp, ULONG *opt)
{
	int am = flags & O_ACCMODE;

	*acc = FILE_READ_ATTRIBUTES;
	if (am == O_RDONLY || am == O_RDWR)
		*acc |= GENERIC_READ;
	if (am == O_WRONLY || am == O_RDWR)
		*acc |= GENERIC_WRITE;
	*disp = (flags & O_CREAT) ? ((flags & O_EXCL) ? FILE_CREATE : FILE_OPEN_IF) : FILE_OPEN;
	*opt = 0;
	if (flags & O_DIRECTORY) {
		*acc = FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES;
		*opt = FILE_DIRECTORY_FILE;
	}
}

int wincompat_openat(int dirfd, const char *path, int flags, ...)
{
	ACCESS_MASK acc;
	ULONG disp, opt;
	HANDLE h;

	if ((flags & O_DIRECTORY) && (flags & (O_CREAT | O_TRUNC | O_WRONLY | O_RDWR))) {
		errno = EINVAL;
		return -1;
	}
	wc_nt_flags(flags, &acc, &disp, &opt);
	if (wc_open_at(dirfd, path, acc, disp, opt, (flags & O_NOFOLLOW) != 0, &h) < 0)
		return -1;
	/* O_TRUNC only once the object is known not to be a reparse point. */
	FILE_END_OF_FILE_INFO eof = {{.QuadPart = 0}};
	if ((flags & O_TRUNC) &&
	    !SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof(eof))) {
		errno = wc_errno_win(GetLastError());
		CloseHandle(h);
		return -1;
	}
	return wc_fd_from_handle(h, flags);
}

/* open: openat(AT_FDCWD); "/dev/null" is the NUL device.  The mode of
 * O_CREAT is not applied: a new file gets its directory's inherited ACL. */
int wincompat_open(const char *path, int flags, ...)
{
	return wincompat_openat(AT_FDCWD, strcmp(path, "/dev/null") == 0 ? "NUL" : path, flags);
}
