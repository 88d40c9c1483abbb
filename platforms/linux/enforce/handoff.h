/* handoff.h - ending an fsnotify group (inotify, fanotify) without waiting
 * for it: fsnotify_destroy_group waits for the fsnotify mark reaper and an
 * SRCU grace period (5-25 ms when the CPUs are busy; bench/RESULTS.md,
 * "The inotify teardown").  The group's file is registered in a one-entry
 * io_uring ring whose teardown runs in a kernel worker, which drops the
 * last reference: the wait is a kworker's, not this process's. */
#ifndef SANDPROOF_HANDOFF_H
#define SANDPROOF_HANDOFF_H

/* Close fd through the hand-off: 0 (fd closed), or -errno when io_uring
 * cannot be used here (disabled, filtered, an old kernel): fd is then
 * still the caller's, to close the plain way. */
int handoff_close(int fd);

#endif
