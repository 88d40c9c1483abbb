/* prims_common.h - what the primitives of every OS share (prims_common.c),
 * beyond the seam's own declarations: the lookup of a "lacks" table, and
 * the OS-neutral halves of a swapper (swap.h). */
#ifndef SANDPROOF_PRIMS_COMMON_H
#define SANDPROOF_PRIMS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* One primitive an OS lacks, and why (NULL: it has it). */
struct prims_lack {
	const char *name, *why;
};

/* prims_lacks() over an OS's table: the reason, or "no such primitive". */
const char *prims_lacks_find(const struct prims_lack *t, size_t n, const char *primitive);

/* Shared between the harness and its swapper process; the swapper is the
 * only writer of count and err, the harness the only writer of stop. */
struct swap_shm {
	uint64_t count;
	int stop;
	int err;
};

/* The OS's atomic exchange of two names: 0 or -errno. */
typedef int (*swap_xchg_fn)(const char *a, const char *b);

/* Before a swapper starts: the entries at a and b into *sa, *sb, and one
 * exchange there and back, so a pair that cannot be exchanged fails here
 * rather than as a loop that never ran.  0 or -errno (-ESTALE: an entry
 * vanished in between). */
int swap_pair_prepare(const char *a, const char *b, struct stat *sa, struct stat *sb,
		      swap_xchg_fn xchg);

/* After the swapper is reaped: the entry that was at a is at a again,
 * checked by device and inode (one more exchange if not), never by
 * parity.  0, -ESTALE when an entry was replaced by someone else, or the
 * loop's own err (positive errno, 0: none) when the arrangement is fine. */
int swap_pair_restore(const char *a, const char *b, const struct stat *sa,
		      const struct stat *sb, int loop_err, swap_xchg_fn xchg);

#endif
