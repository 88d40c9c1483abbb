/* poll.h - the windows build's <poll.h>: poll() over pipe descriptors,
 * an emulation (compat/poll.c; compat/README.md). */
#ifndef SANDPROOF_WINCOMPAT_POLL_H
#define SANDPROOF_WINCOMPAT_POLL_H
#include "wincompat.h"

#define POLLIN 0x001
#define POLLPRI 0x002
#define POLLOUT 0x004
#define POLLERR 0x008
#define POLLHUP 0x010
#define POLLNVAL 0x020
typedef unsigned long nfds_t;
struct pollfd {
	int fd;
	short events;
	short revents;
};
int wincompat_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
#define poll(f, n, t) wincompat_poll(f, n, t)
#endif
