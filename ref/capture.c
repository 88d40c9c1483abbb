/* capture.c - see capture.h. */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

#define CAPTURE_CHUNK 65536

void capture_init(struct capture *c, int fd, size_t limit)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->limit = limit;
}

/* The buffer is reserved once at its bound, as address space only: pages
 * become resident as they are filled, so the memory a stream costs is what
 * it kept (rounded up to a page), never a copy made while growing. */
static void keep(struct capture *c, const char *data, size_t n)
{
	size_t room = c->limit - c->len;

	if (n > room)
		n = room;
	if (n == 0)
		return;
	if (!c->buf) {
		void *p = mmap(NULL, c->limit, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			return; /* keep nothing; still counted by the caller */
		c->buf = p;
		c->cap = c->limit;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
}

int capture_drain(struct capture *c)
{
	char chunk[CAPTURE_CHUNK];
	ssize_t n;

	if (c->fd < 0)
		return 0;
	n = read(c->fd, chunk, sizeof(chunk));
	if (n > 0) {
		c->total += (uint64_t)n;
		keep(c, chunk, (size_t)n);
		return 1;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	int err = n < 0 ? -errno : 0;

	close(c->fd);
	c->fd = -1;
	return err;
}

void capture_close(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

bool capture_truncated(const struct capture *c)
{
	return c->total > c->len;
}

void capture_free(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->buf)
		munmap(c->buf, c->cap);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}
