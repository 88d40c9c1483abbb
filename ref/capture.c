/* capture.c - see capture.h. */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPTURE_CHUNK 65536

void capture_init(struct capture *c, int fd, size_t limit)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->limit = limit;
}

static void keep(struct capture *c, const char *data, size_t n)
{
	size_t room = c->limit - c->len, want;

	if (n > room)
		n = room;
	if (n == 0)
		return;
	want = c->len + n;
	if (want > c->cap) {
		size_t ncap = c->cap ? c->cap : 4096;
		char *nb;

		while (ncap < want)
			ncap *= 2;
		if (ncap > c->limit)
			ncap = c->limit;
		nb = realloc(c->buf, ncap);
		if (!nb)
			return; /* keep what we have; still counted below */
		c->buf = nb;
		c->cap = ncap;
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
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}
