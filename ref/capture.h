/* capture.h - bounded capture of one output stream.
 *
 * Keeps at most `limit` bytes; everything past it is read and dropped but
 * counted, so the command never blocks on a full pipe and the runner's
 * memory stays bounded however much the command prints: a stream costs at
 * most `limit` bytes of resident memory, rounded up to a page (PROC-7). */
#ifndef SANDPROOF_CAPTURE_H
#define SANDPROOF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture {
	int fd;          /* read end, -1 once EOF was seen */
	char *buf;       /* NULL, or `limit` bytes of reserved address space
			  * (mmap) filled from the start: RSS is what was kept */
	size_t len, cap, limit; /* cap: the reserved size (limit) or 0 */
	uint64_t total;  /* every byte read, kept or not */
};

void capture_init(struct capture *c, int fd, size_t limit);
/* Read what is available now.  Returns 1 on data, 0 on EOF (fd closed and
 * set to -1), -EAGAIN when nothing was ready, other -errno on error (fd
 * closed too: a broken stream must not spin the supervisor). */
int capture_drain(struct capture *c);
/* Stop reading: close the descriptor, keep what was captured. */
void capture_close(struct capture *c);
bool capture_truncated(const struct capture *c);
void capture_free(struct capture *c);

#endif
