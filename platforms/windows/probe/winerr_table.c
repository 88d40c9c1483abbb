/* winerr_table.c - the Win32 and Winsock errors the Windows probe can meet
 * (winerr.h).  Portable data, checked on Linux by tests/test_winerr.c.
 *
 * How each nearest errno was chosen: what a Linux probe prints for the same
 * situation (a missing file ENOENT, a name taken EEXIST, a busy file EBUSY),
 * except that a non-denial whose nearest errno would be a policy name gets
 * a neutral one instead (ERROR_PRIVILEGE_NOT_HELD ENOTSUP, not EPERM;
 * ERROR_WRITE_PROTECT EIO, not EROFS): the exact Win32 name always follows
 * in the probe's "win32_error" field, so nothing is lost. */
#include "winerr.h"

#include <stdio.h>
#include <string.h>

#define W(code, name, errname) {code, #name, errname}
const struct winerr_info winerr_table[] = {
	W(2, ERROR_FILE_NOT_FOUND, "ENOENT"),
	W(3, ERROR_PATH_NOT_FOUND, "ENOENT"),
	W(4, ERROR_TOO_MANY_OPEN_FILES, "EMFILE"),
	W(5, ERROR_ACCESS_DENIED, "EACCES"),
	W(6, ERROR_INVALID_HANDLE, "EBADF"),
	W(8, ERROR_NOT_ENOUGH_MEMORY, "ENOMEM"),
	W(14, ERROR_OUTOFMEMORY, "ENOMEM"),
	W(15, ERROR_INVALID_DRIVE, "ENOENT"),
	W(16, ERROR_CURRENT_DIRECTORY, "EBUSY"),
	W(17, ERROR_NOT_SAME_DEVICE, "EXDEV"),
	W(19, ERROR_WRITE_PROTECT, "EIO"),
	W(21, ERROR_NOT_READY, "EIO"),
	W(32, ERROR_SHARING_VIOLATION, "EBUSY"),
	W(33, ERROR_LOCK_VIOLATION, "EBUSY"),
	W(39, ERROR_HANDLE_DISK_FULL, "ENOSPC"),
	W(50, ERROR_NOT_SUPPORTED, "EOPNOTSUPP"),
	W(53, ERROR_BAD_NETPATH, "ENOENT"),
	W(67, ERROR_BAD_NET_NAME, "ENOENT"),
	W(80, ERROR_FILE_EXISTS, "EEXIST"),
	W(87, ERROR_INVALID_PARAMETER, "EINVAL"),
	W(112, ERROR_DISK_FULL, "ENOSPC"),
	W(122, ERROR_INSUFFICIENT_BUFFER, "ERANGE"),
	W(123, ERROR_INVALID_NAME, "EINVAL"),
	W(145, ERROR_DIR_NOT_EMPTY, "ENOTEMPTY"),
	W(161, ERROR_BAD_PATHNAME, "ENOENT"),
	W(183, ERROR_ALREADY_EXISTS, "EEXIST"),
	W(193, ERROR_BAD_EXE_FORMAT, "ENOEXEC"),
	W(203, ERROR_ENVVAR_NOT_FOUND, "ENOENT"),
	W(206, ERROR_FILENAME_EXCED_RANGE, "ENAMETOOLONG"),
	W(267, ERROR_DIRECTORY, "ENOTDIR"),
	W(303, ERROR_DELETE_PENDING, "ENOENT"),
	W(740, ERROR_ELEVATION_REQUIRED, "ENOTSUP"),
	W(1113, ERROR_NO_UNICODE_TRANSLATION, "EILSEQ"),
	W(1142, ERROR_TOO_MANY_LINKS, "EMLINK"),
	W(1314, ERROR_PRIVILEGE_NOT_HELD, "ENOTSUP"),
	W(1920, ERROR_CANT_ACCESS_FILE, "EIO"),
	W(1921, ERROR_CANT_RESOLVE_FILENAME, "ELOOP"),
	W(4390, ERROR_NOT_A_REPARSE_POINT, "EINVAL"),
	W(10013, WSAEACCES, "EACCES"),
	W(10014, WSAEFAULT, "EFAULT"),
	W(10022, WSAEINVAL, "EINVAL"),
	W(10024, WSAEMFILE, "EMFILE"),
	W(10035, WSAEWOULDBLOCK, "EAGAIN"),
	W(10036, WSAEINPROGRESS, "EINPROGRESS"),
	W(10037, WSAEALREADY, "EALREADY"),
	W(10038, WSAENOTSOCK, "ENOTSOCK"),
	W(10040, WSAEMSGSIZE, "EMSGSIZE"),
	W(10041, WSAEPROTOTYPE, "EPROTOTYPE"),
	W(10043, WSAEPROTONOSUPPORT, "EPROTONOSUPPORT"),
	W(10044, WSAESOCKTNOSUPPORT, "EPROTONOSUPPORT"),
	W(10047, WSAEAFNOSUPPORT, "EAFNOSUPPORT"),
	W(10048, WSAEADDRINUSE, "EADDRINUSE"),
	W(10049, WSAEADDRNOTAVAIL, "EADDRNOTAVAIL"),
	W(10050, WSAENETDOWN, "ENETDOWN"),
	W(10051, WSAENETUNREACH, "ENETUNREACH"),
	W(10053, WSAECONNABORTED, "ECONNABORTED"),
	W(10054, WSAECONNRESET, "ECONNRESET"),
	W(10055, WSAENOBUFS, "ENOBUFS"),
	W(10056, WSAEISCONN, "EISCONN"),
	W(10057, WSAENOTCONN, "ENOTCONN"),
	W(10060, WSAETIMEDOUT, "ETIMEDOUT"),
	W(10061, WSAECONNREFUSED, "ECONNREFUSED"),
	W(10065, WSAEHOSTUNREACH, "EHOSTUNREACH"),
	W(10093, WSANOTINITIALISED, "EIO"),
};
const size_t winerr_count = sizeof(winerr_table) / sizeof(winerr_table[0]);

const struct winerr_info *winerr_find(unsigned long code)
{
	for (size_t i = 0; i < winerr_count; i++)
		if (winerr_table[i].code == code)
			return &winerr_table[i];
	return NULL;
}

bool winerr_is_denied(unsigned long code)
{
	return code == WINERR_ACCESS_DENIED || code == WINERR_WSAEACCES;
}

const char *winerr_errno_name(unsigned long code)
{
	const struct winerr_info *e = winerr_find(code);

	return e ? e->errno_name : "EIO";
}

const char *winerr_name(unsigned long code, char *buf, size_t len)
{
	const struct winerr_info *e = winerr_find(code);

	if (e)
		return e->name;
	snprintf(buf, len, "WIN32_%lu", code);
	return buf;
}

bool winerr_errno_is_policy(const char *errno_name)
{
	return strcmp(errno_name, "EACCES") == 0 || strcmp(errno_name, "EPERM") == 0 ||
	       strcmp(errno_name, "EROFS") == 0;
}
