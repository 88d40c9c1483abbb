/* flock.c - flock(2) over LockFileEx.
 *
 * LOCK_SH a shared lock, LOCK_EX an exclusive one, of the whole file (the
 * largest range, from offset 0); LOCK_NB fails at once with EWOULDBLOCK
 * when another holder conflicts (LOCKFILE_FAIL_IMMEDIATELY); LOCK_UN
 * releases.  Differences from flock(2): a conversion (a second flock on
 * the same descriptor) is an unlock then a lock, not atomic (flock(2)
 * converts in place); a lock belongs to the handle, and Windows locks are
 * mandatory for reads and writes of the range through other handles.
 * Neither matters to the runtime roots: a lease file takes one lock per
 * descriptor and is never read or written. */
#include "wincompat_int.h"

int wincompat_flock(int fd, int op)
{
	HANDLE h = wc_handle(fd);
	OVERLAPPED ov = {0};
	DWORD fl;
	int kind = op & (LOCK_SH | LOCK_EX | LOCK_UN);

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (kind != LOCK_SH && kind != LOCK_EX && kind != LOCK_UN) {
		errno = EINVAL;
		return -1;
	}
	/* any lock of ours goes first: a conversion is unlock, then lock (not
	 * atomic, unlike flock(2)) */
	if (!UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov) && kind == LOCK_UN &&
	    GetLastError() != ERROR_NOT_LOCKED) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	if (kind == LOCK_UN)
		return 0;
	fl = (kind == LOCK_EX ? LOCKFILE_EXCLUSIVE_LOCK : 0) |
	     ((op & LOCK_NB) ? LOCKFILE_FAIL_IMMEDIATELY : 0);
	memset(&ov, 0, sizeof(ov));
	if (!LockFileEx(h, fl, 0, MAXDWORD, MAXDWORD, &ov)) {
		DWORD e = GetLastError();
		errno = e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING ? EWOULDBLOCK
									  : wc_errno_win(e);
		return -1;
	}
	return 0;
}
