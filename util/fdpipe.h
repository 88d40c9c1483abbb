/* fdpipe.h - a pipe whose ends are close-on-exec (and non-blocking) from
 * the start, on any POSIX system.
 *
 * A leaf module of portable C, like utf8.h.  Where the system has pipe2
 * (SANDPROOF_HAVE_PIPE2, set by the build for the linux platform) the
 * flags are applied in the same call, so a fork in another thread never
 * inherits an end; elsewhere they are set right after pipe(), which is
 * as good for a single-threaded caller (every caller in this project). */
#ifndef SANDPROOF_FDPIPE_H
#define SANDPROOF_FDPIPE_H

/* fds[0] the read end, fds[1] the write end; flags: O_CLOEXEC and/or
 * O_NONBLOCK, on both ends.  0, or -errno with nothing left open. */
int fdpipe_open(int fds[2], int flags);

#endif
