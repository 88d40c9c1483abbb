/* winswap.h - the junction swapper, Windows's form of swap.h's swapper:
 * portable C over two ops (retarget, stopping), so its rules are
 * unit-tested on every OS with a fake junction (tests/test_winswap.c);
 * swap.c drives it with junction.h's winjct_retarget in a thread.
 *
 * What it does: the junction `link` names target[0] (its target when the
 * swapper starts); the loop retargets it to target[1], back to target[0],
 * and so on until `stopping` says so, each retarget one
 * FSCTL_SET_REPARSE_POINT (an opener through link sees one target or the
 * other, never neither: junction.h).  Every successful retarget counts one
 * exchange, as the Linux swapper counts renameat2 exchanges.
 *
 *   winswap_init   the two targets, checked by reparse_encode_junction's
 *                  rules (a target the encoder refuses is -EINVAL here,
 *                  before anything is changed); equal targets are -EINVAL
 *                  (a swap that changes nothing is no race).
 *   winswap_probe  one exchange there and back, so a link that cannot be
 *                  retargeted fails before the race starts (swap_start's
 *                  contract); the link names target[0] after it, or the
 *                  error says which step failed and restore is owed.
 *   winswap_loop   until stopping() or the first failed retarget (its
 *                  -errno kept in err: the loop stops, never spins on
 *                  errors); counts exchanges.
 *   winswap_restore  the link back at target[0] when the last successful
 *                  retarget left it at target[1]; 0 or -errno.
 *
 * The caller owns the threads: loop runs in one, stopping() is read there
 * and set from another (an atomic flag the caller provides). */
#ifndef SANDPROOF_WINSWAP_H
#define SANDPROOF_WINSWAP_H

#include <stdbool.h>
#include <stdint.h>

struct winswap_ops {
	/* point the junction at target (a DOS path "X:\..."): 0 or -errno */
	int (*retarget)(void *ctx, const char *target);
	/* true once the caller asked the loop to stop */
	bool (*stopping)(void *ctx);
};

struct winswap {
	char *target[2]; /* owned: [0] the original, [1] the other */
	int at;          /* which target the link names now (0 or 1) */
	uint64_t exchanges;
	int err;         /* the loop's first failure (-errno), 0 */
};

/* 0, -EINVAL (NULL, a target the junction encoder refuses, equal
 * targets), -ENOMEM.  On failure s holds nothing to free. */
int winswap_init(struct winswap *s, const char *original, const char *other);

/* One exchange there and back (not counted).  0, or the -errno of the
 * failed step (s->at then says where the link was left). */
int winswap_probe(struct winswap *s, const struct winswap_ops *o, void *ctx);

/* Retarget back and forth until o->stopping(ctx) or a failure (kept in
 * s->err, and returned); 0 when stopped. */
int winswap_loop(struct winswap *s, const struct winswap_ops *o, void *ctx);

/* The link back at target[0] if it is not there: 0 or -errno. */
int winswap_restore(struct winswap *s, const struct winswap_ops *o, void *ctx);

void winswap_free(struct winswap *s);

#endif
