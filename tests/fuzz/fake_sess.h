/* fake_sess.h - the fuzzers' seam (fake_sess.c): the fake clock serve_now
 * reads, and whether the server is ending (then a session still running may
 * be freed: serve_end SIGKILLs it). */
#ifndef SANDPROOF_FAKE_SESS_H
#define SANDPROOF_FAKE_SESS_H

#include <stdbool.h>
#include <stdint.h>

extern int64_t fake_clock;
extern bool fake_ending;
/* Forget every fake session: before each input. */
void fake_reset(void);

#endif
