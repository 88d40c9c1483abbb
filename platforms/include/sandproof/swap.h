/* swap.h - atomic exchange of two paths, once or in a tight loop.
 *
 * The race primitive of the harness: renameat2(RENAME_EXCHANGE) swaps two
 * names in one step (a directory with a symlink, a file with a directory:
 * any two entries on one file system), so a runner that checks a path and
 * later uses it can be shown the other object in between.
 *
 * On Windows (platforms/windows/prims/swap.c) a swap is three renames
 * (junction.h's winjct_swap: a -> a.sp-swap, b -> a, a.sp-swap -> b, never
 * replacing): Windows has no atomic exchange, so between the first two
 * renames a is absent and between the last two b is; an open there fails
 * with "not found" and never reaches a third object.  The other object is
 * usually a junction (swap_junction): the Windows form of the symlink a
 * POSIX scenario exchanges in.  The swapper there flips a junction
 * instead of exchanging names (swap_start below). */
#ifndef SANDPROOF_SWAP_H
#define SANDPROOF_SWAP_H

#include <stdint.h>

/* Exchange the entries a and b (both must exist, same file system).
 * 0 or -errno (-EINVAL for NULL, -EXDEV across file systems, ...). */
int swap_exchange(const char *a, const char *b);

struct swapper;

/* Start a process that exchanges a and b in a tight loop until
 * swap_stop(), counting successful exchanges in shared memory.  One
 * exchange there and back is tried first, so a pair that cannot be
 * exchanged fails here: 0 or -errno, *out owned by the caller.
 *
 * The process is a child of the calling thread and dies with it
 * (PR_SET_PDEATHSIG): a harness killed mid-race leaves no swapper.  The
 * caller must not reap it (waitpid(-1, ...)) before swap_stop().
 *
 * On Windows (no atomic exchange) a must be a junction and b a directory:
 * a thread of the caller retargets a between its target at the start and
 * b (one FSCTL_SET_REPARSE_POINT each: an opener through a sees one or the
 * other, never neither), counting each retarget as an exchange
 * (platforms/windows/prims/winswap.h); swap_stop leaves a at its first
 * target.  -EINVAL when a is not a junction; swap_pid is -1 (no process). */
int swap_start(const char *a, const char *b, struct swapper **out);

/* Make link a junction (an NTFS mount point) to the directory target: a
 * new one when link does not exist; when link is a junction already, it
 * is retargeted in one FSCTL_SET_REPARSE_POINT (an opener sees the old
 * target or the new, never neither: the Windows swap of a held scenario,
 * docs/SCENARIOS.md).  0 or -errno; -EOPNOTSUPP where there are no
 * junctions (every OS but Windows, and Wine). */
int swap_junction(const char *link, const char *target);

/* The swapper's pid (for a census or a kill list), or -1. */
int swap_pid(const struct swapper *s);

/* Stop the loop, reap the process and free s.  The two paths are left in
 * their original arrangement: the entry that was at a when swap_start()
 * ran is at a again (checked by device and inode, one more exchange if
 * not), whatever the count.  *exchanges (may be NULL) receives the number
 * of exchanges the loop made.  0, or -errno when the arrangement could
 * not be restored (-ESTALE: an entry was replaced by someone else) or the
 * loop itself stopped on an error (its errno, reported once). */
int swap_stop(struct swapper *s, uint64_t *exchanges);

#endif
