/* wincompat_int.h - what the compat layer's files share: Win32 and NT
 * declarations, descriptor <-> handle, error mapping, UTF-8 <-> UTF-16.
 * Private to platforms/windows/compat/. */
#ifndef SANDPROOF_WINCOMPAT_INT_H
#define SANDPROOF_WINCOMPAT_INT_H

#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <winternl.h>

#include "wincompat.h"

/* The handle behind a CRT descriptor, or INVALID_HANDLE_VALUE (errno EBADF). */
HANDLE wc_handle(int fd);
/* A CRT descriptor owning h (closed on failure); flags: O_ACCMODE bits,
 * O_APPEND, O_CLOEXEC.  O_CLOEXEC clear makes h inheritable. */
int wc_fd_from_handle(HANDLE h, int flags);
/* errno for a Win32 error / an NTSTATUS. */
int wc_errno_win(DWORD err);
int wc_errno_nt(NTSTATUS st);
/* UTF-8 to a malloc'd UTF-16 string; slashes become backslashes when
 * nt_name (NT names know only backslashes).  NULL, errno set, on failure. */
wchar_t *wc_wide(const char *s, int nt_name);
/* Fills *st from an open handle; nofollow_seen: the handle is of a reparse
 * point opened as itself (reported S_IFLNK). */
int wc_stat_handle(HANDLE h, struct stat *st);

/* Opens path relative to dirfd (AT_FDCWD, or a directory descriptor: a
 * true NT relative open, OBJECT_ATTRIBUTES.RootDirectory), with NT access,
 * disposition and options.  nofollow: the last component is opened as
 * itself (FILE_OPEN_REPARSE_POINT) and refused with ELOOP when it is a
 * reparse point.  0 and *out, or -1 and errno. */
int wc_open_at(int dirfd, const char *path, ACCESS_MASK access, ULONG disposition,
	       ULONG options, int nofollow, HANDLE *out);

/* Whether the open handle is of a reparse point (1), not (0), -1 errno. */
int wc_is_reparse(HANDLE h);
#endif
