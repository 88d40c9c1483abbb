/* serve_drive.h - one `sandproof-ref serve` driven in process for the
 * protocol fuzzers: the line handler, the operations and the session table
 * of ref/serve_*.c, fake sessions and a fake clock (fake_sess.c), the
 * responses into memory.  The driver plays serve.c's loop: it feeds input
 * while the server reads, moves the clock to the next deadline while a
 * call waits, and ends as serve_end does.
 *
 * Properties checked (abort, with what was violated, is a finding): every
 * request line gets exactly one response line, each a JSON object (jscan);
 * the table never holds more than its capacity nor more live sessions than
 * the limit; the loop always makes progress; and fake_sess.c's own. */
#ifndef SANDPROOF_SERVE_DRIVE_H
#define SANDPROOF_SERVE_DRIVE_H

#include <stddef.h>
#include <stdint.h>

void drive_begin(size_t max_sessions, size_t line_max);
/* Bytes the caller sends; the server reads them when it reads. */
void drive_input(const char *p, size_t n);
/* The caller waits ms before sending more: the server runs meanwhile. */
void drive_sleep(int64_t ms);
/* The caller closes stdin now (a waiting call is then answered at once). */
void drive_hangup(void);
/* Stdin ends; the server answers what is left and ends; then the checks. */
void drive_end(void);

#endif
