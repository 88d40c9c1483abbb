/* fdpipe.c - see fdpipe.h. */
#include "fdpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#ifdef SANDPROOF_HAVE_PIPE2
int fdpipe_open(int fds[2], int flags)
{
	return pipe2(fds, flags) < 0 ? -errno : 0;
}
#else
static int fdpipe_flags(int fd, int flags)
{
	int fl;

	if ((flags & O_CLOEXEC) && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	if ((flags & O_NONBLOCK) &&
	    ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0))
		return -1;
	return 0;
}

int fdpipe_open(int fds[2], int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	if (pipe(fds) < 0)
		return -errno;
	if (fdpipe_flags(fds[0], flags) < 0 || fdpipe_flags(fds[1], flags) < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		fds[0] = fds[1] = -1;
		return -e;
	}
	return 0;
}
#endif
