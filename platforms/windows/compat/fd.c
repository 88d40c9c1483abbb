/* fd.c - descriptors and handles, errors, names (wincompat_int.h), and the
 * descriptor calls: fcntl, pipe, open.
 *
 * fcntl: F_GETFD / F_SETFD FD_CLOEXEC read and set the handle's
 * HANDLE_FLAG_INHERIT (close-on-exec is "not inherited": Windows has no
 * exec, a child gets only inheritable handles - and the Windows launch
 * passes an explicit handle list on top).  F_DUPFD_CLOEXEC duplicates the
 * handle, not inheritable.  F_GETFL / F_SETFL keep O_NONBLOCK in a table
 * per descriptor and change nothing else: reads and writes on Windows
 * pipes stay blocking, and the code that sets O_NONBLOCK reads or writes
 * only after poll() said it would not block (compat/README.md).
 * pipe: CreatePipe, both ends binary and not inherited.
 * open: openat(AT_FDCWD, ...) (at_open.c). */
#include "wincompat_int.h"

#include <stdarg.h>

#define WC_MAXFD 4096
static unsigned char wc_nonblock[WC_MAXFD];

HANDLE wc_handle(int fd)
{
	HANDLE h = fd >= 0 ? (HANDLE)_get_osfhandle(fd) : INVALID_HANDLE_VALUE;

	if (h == INVALID_HANDLE_VALUE)
		errno = EBADF;
	return h;
}

int wc_fd_from_handle(HANDLE h, int flags)
{
	int crt = _O_BINARY | (flags & (O_ACCMODE | O_APPEND));

	if (!SetHandleInformation(h, HANDLE_FLAG_INHERIT,
				  (flags & O_CLOEXEC) ? 0 : HANDLE_FLAG_INHERIT)) {
		errno = wc_errno_win(GetLastError());
		CloseHandle(h);
		return -1;
	}
	int fd = _open_osfhandle((intptr_t)h, crt | ((flags & O_CLOEXEC) ? _O_NOINHERIT : 0));
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
		return -1;
	}
	if (fd < WC_MAXFD)
		wc_nonblock[fd] = 0;
	return fd;
}

int wc_errno_win(DWORD err)
{
	switch (err) {
	case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH: case ERROR_BAD_PATHNAME:
		return ENOENT;
	case ERROR_ACCESS_DENIED: case ERROR_PRIVILEGE_NOT_HELD: case ERROR_WRITE_PROTECT:
		return EACCES;
	case ERROR_SHARING_VIOLATION:
		return EBUSY;
	case ERROR_LOCK_VIOLATION:
		return EWOULDBLOCK;
	case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_INVALID_NAME:
		return EINVAL;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	case ERROR_NOT_SAME_DEVICE:
		return EXDEV;
	case ERROR_INVALID_HANDLE:
		return EBADF;
	case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_BROKEN_PIPE: case ERROR_NO_DATA:
		return EPIPE;
	case ERROR_NOT_SUPPORTED: case ERROR_CALL_NOT_IMPLEMENTED:
		return EOPNOTSUPP;
	case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_CANT_RESOLVE_FILENAME:
		return ELOOP;
	case ERROR_INVALID_PARAMETER:
		return EINVAL;
	case ERROR_TOO_MANY_OPEN_FILES:
		return EMFILE;
	default:
		return EIO;
	}
}

int wc_errno_nt(NTSTATUS st)
{
	switch ((unsigned long)st) {
	case 0xC00000BAUL: return EISDIR;  /* STATUS_FILE_IS_A_DIRECTORY */
	case 0xC0000103UL: return ENOTDIR; /* STATUS_NOT_A_DIRECTORY */
	case 0xC0000035UL: return EEXIST;  /* STATUS_OBJECT_NAME_COLLISION */
	case 0xC0000056UL: return ENOENT;  /* STATUS_DELETE_PENDING */
	case 0xC0000033UL: return EINVAL;  /* STATUS_OBJECT_NAME_INVALID */
	default: return wc_errno_win(RtlNtStatusToDosError(st));
	}
}

wchar_t *wc_wide(const char *s, int nt_name)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(wchar_t)) : NULL;

	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	for (int i = 0; nt_name && w[i]; i++)
		if (w[i] == L'/')
			w[i] = L'\\';
	return w;
}

static int wc_dup_cloexec(int fd)
{
	HANDLE h = wc_handle(fd), d;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, FALSE,
			     DUPLICATE_SAME_ACCESS)) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	return wc_fd_from_handle(d, O_RDONLY | O_CLOEXEC);
}

int wincompat_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	DWORD hf;
	HANDLE h = wc_handle(fd);
	int arg;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	va_start(ap, cmd);
	arg = cmd == F_SETFD || cmd == F_SETFL || cmd == F_DUPFD_CLOEXEC ? va_arg(ap, int) : 0;
	va_end(ap);
	switch (cmd) {
	case F_GETFD:
		if (!GetHandleInformation(h, &hf))
			break;
		return (hf & HANDLE_FLAG_INHERIT) ? 0 : FD_CLOEXEC;
	case F_SETFD:
		if (!SetHandleInformation(h, HANDLE_FLAG_INHERIT,
					  (arg & FD_CLOEXEC) ? 0 : HANDLE_FLAG_INHERIT))
			break;
		return 0;
	case F_GETFL:
		return fd < WC_MAXFD && wc_nonblock[fd] ? O_NONBLOCK : 0;
	case F_SETFL:
		if (fd < WC_MAXFD)
			wc_nonblock[fd] = (arg & O_NONBLOCK) != 0;
		return 0;
	case F_DUPFD_CLOEXEC:
		if (arg != 0) {
			errno = EINVAL; /* only "the lowest free descriptor" */
			return -1;
		}
		return wc_dup_cloexec(fd);
	default:
		errno = EINVAL;
		return -1;
	}
	errno = wc_errno_win(GetLastError());
	return -1;
}

int wincompat_pipe(int fds[2])
{
	HANDLE r, w;

	if (!CreatePipe(&r, &w, NULL, 0)) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	fds[0] = wc_fd_from_handle(r, O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0) {
		CloseHandle(w);
		return -1;
	}
	fds[1] = wc_fd_from_handle(w, O_WRONLY | O_CLOEXEC);
	if (fds[1] < 0) {
		_close(fds[0]);
		return -1;
	}
	return 0;
}
