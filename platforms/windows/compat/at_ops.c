/* at_ops.c - the rest of the *at family on NT handles (at_open.c opens):
 *
 * mkdirat: created relative to the directory handle (FILE_CREATE,
 *   FILE_DIRECTORY_FILE); the mode is not applied (the new directory
 *   inherits its parent's ACL).
 * unlinkat: never follows: the last component is opened as itself
 *   (FILE_OPEN_REPARSE_POINT), so a junction or symbolic link is removed,
 *   never what it points to.  Without AT_REMOVEDIR a real directory is
 *   EISDIR; with it, anything but a real directory is ENOTDIR, a non-empty
 *   one ENOTEMPTY.  The name goes at once, as unlink(2)'s does, where the
 *   file system has POSIX-semantics deletion (NTFS, Windows 10 1709+:
 *   FILE_DISPOSITION_FLAG_POSIX_SEMANTICS); elsewhere deletion is Windows'
 *   delete-on-close, and the name lingers, refusing opens, until every
 *   handle to it is closed.  Why: an evictor unlinks a lease file another
 *   run still has open; a lingering name would refuse that run's reopen.
 * renameat: the old name opened as itself (DELETE access), renamed by
 *   FileRenameInformation relative to the new directory's handle,
 *   replacing an existing file as rename(2) does (Windows refuses to
 *   replace a directory: EACCES).
 * fchmodat: Windows keeps only "read-only": set when no write bit is
 *   asked for, cleared otherwise; AT_SYMLINK_NOFOLLOW on a reparse point
 *   is EOPNOTSUPP (Linux's answer for a symbolic link).
 * readlinkat: EINVAL for anything not a reparse point; a reparse point's
 *   target is not read yet (EOPNOTSUPP): callers fail closed.
 * rename: MoveFileExW replacing an existing file; link: CreateHardLinkW;
 * fchmod: as fchmodat; mkstemp: O_CREAT|O_EXCL over random names. */
#define _CRT_RAND_S
#include "wincompat_int.h"

#define WC_DIR_ACC (FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES)

static int wc_fail_win(void)
{
	errno = wc_errno_win(GetLastError());
	return -1;
}

int wincompat_mkdirat(int dirfd, const char *path, int mode)
{
	HANDLE h;

	(void)mode;
	if (dirfd == AT_FDCWD || path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':')) {
		wchar_t *w = wc_wide(path, 0);
		BOOL ok = w && CreateDirectoryW(w, NULL);
		DWORD e = GetLastError();
		free(w);
		if (!ok && w)
			errno = wc_errno_win(e);
		return ok ? 0 : -1;
	}
	if (wc_open_at(dirfd, path, WC_DIR_ACC, FILE_CREATE, FILE_DIRECTORY_FILE, 0, &h) < 0)
		return -1;
	CloseHandle(h);
	return 0;
}

static int wc_attrs(HANDLE h, DWORD *attrs)
{
	FILE_ATTRIBUTE_TAG_INFO t;

	if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &t, sizeof(t)))
		return wc_fail_win();
	*attrs = t.FileAttributes;
	return 0;
}

/* POSIX-semantics delete of the open object: TRUE when done; FALSE when
 * the file system or the OS does not offer it (the caller falls back). */
static BOOL wc_delete_posix(HANDLE h)
{
	/* FileDispositionInfoEx (21) and its flags DELETE (1) | POSIX_SEMANTICS
	 * (2): Windows 10 1607+ names, not declared for this build's
	 * _WIN32_WINNT; an older system refuses the class (fallback). */
	const FILE_INFO_BY_HANDLE_CLASS disposition_ex = (FILE_INFO_BY_HANDLE_CLASS)21;
	DWORD flags = 0x1 | 0x2;

	return SetFileInformationByHandle(h, disposition_ex, &flags, sizeof(flags));
}

int wincompat_unlinkat(int dirfd, const char *path, int flags)
{
	FILE_DISPOSITION_INFO del = {TRUE};
	DWORD a;
	HANDLE h;
	int rc = -1;

	if (wc_open_at(dirfd, path, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN,
		       FILE_OPEN_REPARSE_POINT, 0, &h) < 0)
		return -1;
	if (wc_attrs(h, &a) == 0) {
		int rdir = (a & FILE_ATTRIBUTE_DIRECTORY) && !(a & FILE_ATTRIBUTE_REPARSE_POINT);
		if ((flags & AT_REMOVEDIR) && !rdir)
			errno = ENOTDIR;
		else if (!(flags & AT_REMOVEDIR) && rdir)
			errno = EISDIR;
		else if (!wc_delete_posix(h) &&
			 !SetFileInformationByHandle(h, FileDispositionInfo, &del, sizeof(del)))
			wc_fail_win();
		else
			rc = 0;
	}
	CloseHandle(h);
	return rc;
}

int wincompat_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	int abs = newpath[0] == '/' || newpath[0] == '\\' || (newpath[0] && newpath[1] == ':');
	HANDLE h, nd = NULL;
	IO_STATUS_BLOCK io;
	wchar_t *w;
	int rc = -1;

	if (!abs && newdirfd != AT_FDCWD && (nd = wc_handle(newdirfd)) == INVALID_HANDLE_VALUE)
		return -1;
	if (abs || newdirfd == AT_FDCWD) {
		/* NT wants a full NT path here; let Win32 resolve it. */
		wchar_t full[MAX_PATH + 8];
		wchar_t *n = wc_wide(newpath, 0);
		DWORD len = n ? GetFullPathNameW(n, MAX_PATH, full + 4, NULL) : 0;
		free(n);
		if (!len || len >= MAX_PATH) {
			errno = n ? ENAMETOOLONG : errno;
			return -1;
		}
		memcpy(full, L"\\??\\", 4 * sizeof(wchar_t));
		w = _wcsdup(full);
		nd = NULL;
	} else {
		w = wc_wide(newpath, 1);
	}
	if (!w)
		return -1;
	size_t nb = wcslen(w) * sizeof(wchar_t);
	FILE_RENAME_INFORMATION *ri = calloc(1, sizeof(*ri) + nb);
	if (ri && wc_open_at(olddirfd, oldpath, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN,
			     FILE_OPEN_REPARSE_POINT, 0, &h) == 0) {
		ri->ReplaceIfExists = TRUE;
		ri->RootDirectory = nd;
		ri->FileNameLength = (ULONG)nb;
		memcpy(ri->FileName, w, nb);
		NTSTATUS st = NtSetInformationFile(h, &io, ri, (ULONG)(sizeof(*ri) + nb),
						   FileRenameInformation);
		if (NT_SUCCESS(st))
			rc = 0;
		else
			errno = wc_errno_nt(st);
		CloseHandle(h);
	} else if (!ri) {
		errno = ENOMEM;
	}
	free(ri);
	free(w);
	return rc;
}

static int wc_chmod_handle(HANDLE h, int mode)
{
	FILE_BASIC_INFO b;

	if (!GetFileInformationByHandleEx(h, FileBasicInfo, &b, sizeof(b)))
		return wc_fail_win();
	if (mode & 0222)
		b.FileAttributes &= ~(DWORD)FILE_ATTRIBUTE_READONLY;
	else
		b.FileAttributes |= FILE_ATTRIBUTE_READONLY;
	if (!b.FileAttributes)
		b.FileAttributes = FILE_ATTRIBUTE_NORMAL;
	if (!SetFileInformationByHandle(h, FileBasicInfo, &b, sizeof(b)))
		return wc_fail_win();
	return 0;
}

int wincompat_fchmodat(int dirfd, const char *path, int mode, int flags)
{
	HANDLE h;
	DWORD a;
	int rc = -1;

	if (wc_open_at(dirfd, path, FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, FILE_OPEN,
		       (flags & AT_SYMLINK_NOFOLLOW) ? FILE_OPEN_REPARSE_POINT : 0, 0, &h) < 0)
		return -1;
	if (wc_attrs(h, &a) == 0) {
		if ((flags & AT_SYMLINK_NOFOLLOW) && (a & FILE_ATTRIBUTE_REPARSE_POINT))
			errno = EOPNOTSUPP;
		else
			rc = wc_chmod_handle(h, mode);
	}
	CloseHandle(h);
	return rc;
}

int wincompat_fchmod(int fd, int mode)
{
	HANDLE h = wc_handle(fd);

	return h == INVALID_HANDLE_VALUE ? -1 : wc_chmod_handle(h, mode);
}

ssize_t wincompat_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	HANDLE h;
	int rp;

	(void)buf;
	(void)len;
	if (wc_open_at(dirfd, path, FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_OPEN_REPARSE_POINT, 0,
		       &h) < 0)
		return -1;
	rp = wc_is_reparse(h);
	CloseHandle(h);
	if (rp >= 0)
		errno = rp ? EOPNOTSUPP : EINVAL;
	return -1;
}

int wincompat_rename(const char *from, const char *to)
{
	wchar_t *a = wc_wide(from, 0), *b = a ? wc_wide(to, 0) : NULL;
	BOOL ok = b && MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING);
	DWORD e = GetLastError();

	free(a);
	free(b);
	if (!ok && b)
		errno = wc_errno_win(e);
	return ok ? 0 : -1;
}

int wincompat_link(const char *from, const char *to)
{
	wchar_t *a = wc_wide(from, 0), *b = a ? wc_wide(to, 0) : NULL;
	BOOL ok = b && CreateHardLinkW(b, a, NULL);
	DWORD e = GetLastError();

	free(a);
	free(b);
	if (!ok && b)
		errno = wc_errno_win(e);
	return ok ? 0 : -1;
}

int wincompat_mkstemp(char *templ)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(templ);

	if (n < 6 || strcmp(templ + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	for (int tries = 0; tries < 100; tries++) {
		unsigned int r;
		for (size_t i = n - 6; i < n; i++) {
			if (rand_s(&r) != 0)
				r = (unsigned int)(GetTickCount() * 2654435761u + i + (unsigned)tries);
			templ[i] = chars[r % (sizeof(chars) - 1)];
		}
		int fd = wincompat_openat(AT_FDCWD, templ, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}
