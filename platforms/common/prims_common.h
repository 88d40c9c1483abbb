/* prims_common.h - what the primitives of every OS share (prims_common.c),
 * beyond the seam's own declarations: the lookup of a "lacks" table, the
 * OS-neutral halves of a swapper (swap.h), and the timer of proc.h's
 * signal option that each OS's launcher loop asks. */
#ifndef SANDPROOF_PRIMS_COMMON_H
#define SANDPROOF_PRIMS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "sandproof/proc.h"

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

/* proc_opts' signal as a timer each OS's launcher loop asks. */
struct proc_sigtimer {
	uint64_t at;   /* when to send, in the caller's ms clock (armed) */
	int state;     /* 0 none or sent, 1 waiting for signal_when, 2 armed */
};

/* The signal options alone: 0 or -EINVAL (a negative number, signal_when
 * empty or without a signal). */
int proc_signal_check(const struct proc_opts *o);

/* At the program's start (now, in ms). */
void proc_sigtimer_start(struct proc_sigtimer *t, const struct proc_opts *o, uint64_t now);

/* Before each wait of the loop: 0 when the signal is due now (the caller
 * sends it and calls proc_sigtimer_sent), else how many ms the loop may
 * wait before asking again, or -1 when there is nothing left to send. */
int proc_sigtimer_due(struct proc_sigtimer *t, const struct proc_opts *o, uint64_t now);

static inline void proc_sigtimer_sent(struct proc_sigtimer *t)
{
	t->state = 0;
}

#endif
