/* stat.c - fstat, fstatat, stat from an open handle.
 *
 * What a struct stat says on Windows: st_dev is the volume serial number,
 * st_ino the 64-bit file index (unique per volume on NTFS; ReFS's 128-bit
 * ids are truncated), st_nlink the link count, st_size and the times the
 * file's.  st_mode: S_IFLNK | 0777 for a reparse point opened as itself
 * (AT_SYMLINK_NOFOLLOW), S_IFDIR | 0700 for a directory, S_IFREG | 0600
 * for anything else (0400 when read-only), S_IFCHR for a character device
 * (NUL, a console), S_IFIFO for a pipe.  The permission bits are not
 * Windows' access rules (those are the ACL): they say "the owner's,
 * nobody else's", which is what the runtime roots check; st_uid and
 * st_gid are 0, geteuid()'s answer (compat/README.md). */
#include "wincompat_int.h"

static time_t wc_time(FILETIME ft)
{
	uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;

	return (time_t)(t / 10000000u) - (time_t)11644473600LL;
}

int wc_stat_handle(HANDLE h, struct stat *st)
{
	BY_HANDLE_FILE_INFORMATION i;
	DWORD type = GetFileType(h);

	memset(st, 0, sizeof(*st));
	if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
		st->st_mode = (type == FILE_TYPE_CHAR ? S_IFCHR : S_IFIFO) | 0600;
		st->st_nlink = 1;
		return 0;
	}
	if (!GetFileInformationByHandle(h, &i)) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	st->st_dev = i.dwVolumeSerialNumber;
	st->st_ino = ((uint64_t)i.nFileIndexHigh << 32) | i.nFileIndexLow;
	st->st_nlink = i.nNumberOfLinks;
	st->st_size = (int64_t)(((uint64_t)i.nFileSizeHigh << 32) | i.nFileSizeLow);
	st->st_atime = wc_time(i.ftLastAccessTime);
	st->st_mtime = wc_time(i.ftLastWriteTime);
	st->st_ctime = wc_time(i.ftCreationTime);
	if (i.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		st->st_mode = S_IFLNK | 0777;
	else if (i.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->st_mode = S_IFDIR | 0700;
	else
		st->st_mode = S_IFREG | ((i.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0400 : 0600);
	return 0;
}

int wincompat_fstat(int fd, struct stat *st)
{
	HANDLE h = wc_handle(fd);

	return h == INVALID_HANDLE_VALUE ? -1 : wc_stat_handle(h, st);
}

/* A reparse point is reported (S_IFLNK) only when opened as itself: with
 * AT_SYMLINK_NOFOLLOW; without it the open follows, as stat(2) does. */
int wincompat_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	HANDLE h;
	int rc;

	if (wc_open_at(dirfd, path, FILE_READ_ATTRIBUTES, FILE_OPEN,
		       (flags & AT_SYMLINK_NOFOLLOW) ? FILE_OPEN_REPARSE_POINT : 0, 0, &h) < 0)
		return -1;
	rc = wc_stat_handle(h, st);
	CloseHandle(h);
	return rc;
}

int wincompat_stat(const char *path, struct stat *st)
{
	return wincompat_fstatat(AT_FDCWD, path, st, 0);
}
