/* poll.c - poll() over pipe descriptors: an EMULATION, not a wait on the
 * kernel (Windows has no readiness wait for anonymous pipes).
 *
 * Each round: the SIGCHLD handler is called for registered children that
 * ended (children.c), then every descriptor is looked at:
 *   - a pipe's read end: POLLIN when PeekNamedPipe sees bytes, POLLHUP
 *     when the write end is closed and nothing is left (ERROR_BROKEN_PIPE),
 *     POLLERR on another error;
 *   - a pipe's write end: POLLOUT whenever asked (Windows cannot say
 *     whether a write would block: a large write may block until the
 *     reader drains), POLLHUP never (a write to a broken pipe fails with
 *     EPIPE);
 *   - a file or character device: ready for what was asked, as POSIX
 *     says of regular files;
 *   - a negative fd is skipped, an invalid one is POLLNVAL.
 * When nothing is ready, it sleeps WC_POLL_STEP_MS (or what is left of the
 * timeout) and looks again, until the timeout (-1: none).  Latency is
 * thus up to one step; the result is never earlier than the truth.
 * Returns the number of descriptors with revents, 0 on timeout. */
#include "wincompat_int.h"
#include "children.h"

#include "poll.h"

#define WC_POLL_STEP_MS 5

static short wc_poll_one(const struct pollfd *p)
{
	HANDLE h = (HANDLE)_get_osfhandle(p->fd);
	DWORD avail = 0;

	if (h == INVALID_HANDLE_VALUE)
		return POLLNVAL;
	if (GetFileType(h) != FILE_TYPE_PIPE)
		return (short)(p->events & (POLLIN | POLLOUT));
	if (!(p->events & POLLIN))
		return (short)(p->events & POLLOUT);
	if (PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
		return avail ? POLLIN : 0;
	DWORD e = GetLastError();
	if (e == ERROR_BROKEN_PIPE)
		return POLLHUP;
	if (e == ERROR_ACCESS_DENIED) /* a write end asked for POLLIN|POLLOUT */
		return (short)(p->events & POLLOUT);
	return POLLERR;
}

int wincompat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	ULONGLONG start = GetTickCount64();

	for (;;) {
		int ready = 0;

		wc_children_notify();
		for (nfds_t i = 0; i < n; i++) {
			fds[i].revents = fds[i].fd < 0 ? 0 : wc_poll_one(&fds[i]);
			ready += fds[i].revents != 0;
		}
		if (ready || timeout_ms == 0)
			return ready;
		DWORD step = WC_POLL_STEP_MS;
		if (timeout_ms > 0) {
			ULONGLONG spent = GetTickCount64() - start;
			if (spent >= (ULONGLONG)timeout_ms)
				return 0;
			if ((ULONGLONG)timeout_ms - spent < step)
				step = (DWORD)((ULONGLONG)timeout_ms - spent);
		}
		Sleep(step);
	}
}
