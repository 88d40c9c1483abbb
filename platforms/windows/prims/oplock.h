/* oplock.h - the oplock hold on Windows (windows build only): winhold.h's
 * state machine driven by FSCTL_REQUEST_OPLOCK.
 *
 * Each arm opens path (FILE_FLAG_OVERLAPPED, FILE_FLAG_BACKUP_SEMANTICS so
 * a directory opens too; the object path names, a junction on the way
 * followed) for reading with the given share mode, and requests a
 * read-handle oplock (OPLOCK_LEVEL_CACHE_READ | OPLOCK_LEVEL_CACHE_HANDLE,
 * the level a directory may hold).  With share mode 0 every other open
 * asking for data access conflicts with the holder's handle, so NTFS
 * breaks the handle-caching part first and the opener waits for the
 * holder to close it: that wait is the window.  With a wider share mode
 * only conflicting opens break it.  Release is closing the handle (after
 * cancelling and reaping a request still pending), which lets the waiting
 * open continue.
 *
 * Not seen as opens: attribute-only opens (they break no oplock), opens
 * while the holder re-arms.  Arming fails (-EACCES) while another handle
 * to path is open without sharing what the holder asks; -EAGAIN when NTFS
 * does not grant the oplock; -EOPNOTSUPP under Wine (ERROR_NOT_SUPPORTED).
 *
 * Single-threaded per oplock: one thread drives the hold (winoplock_hold);
 * winoplock_stop may be called from another thread to end its wait. */
#ifndef SANDPROOF_OPLOCK_H
#define SANDPROOF_OPLOCK_H

#include "winhold.h"

struct winoplock;

/* A hold on path with share (FILE_SHARE_* bits; 0: any open breaks it);
 * process (a HANDLE, may be NULL): its exit is the end of the run (STOP).
 * 0 and *out, or -errno. Nothing is opened before the first arm. */
int winoplock_new(const char *path, unsigned long share, void *process, struct winoplock **out);

/* End the current or next wait with STOP (any thread). */
void winoplock_stop(struct winoplock *o);

/* Release anything still held and free o. */
void winoplock_free(struct winoplock *o);

/* The ops winhold_drive runs on a struct winoplock. */
extern const struct winhold_ops winoplock_ops;

/* A whole hold: winhold_init(h, hold_at, path, action, ctx), then
 * winhold_drive over o with timeout_ms per wait.  Returns h->outcome, or
 * WINHOLD_ERROR with h->err = -EINVAL for bad arguments. */
enum winhold_outcome winoplock_hold(struct winoplock *o, struct winhold *h, int hold_at,
				    winhold_action_fn action, void *ctx, int timeout_ms);

#endif
