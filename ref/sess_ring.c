/* sess_ring.c - a session's output ring (sess.h): the newest ring.cap
 * bytes, the rest counted.  Apart from sess.c so the protocol fuzzer's fake
 * sessions (tests/fuzz) keep their output in the same ring. */
#include <string.h>

#include "sess.h"

void sess_ring_put(struct sess_ring *r, const char *p, size_t n)
{
	r->total += n;
	if (!r->buf)
		return; /* a pruned session: read and dropped */
	if (n >= r->cap) {
		r->dropped += r->len + (n - r->cap);
		p += n - r->cap;
		n = r->cap;
		r->start = r->len = 0;
	} else if (r->len + n > r->cap) {
		size_t drop = r->len + n - r->cap;

		r->dropped += drop;
		r->start = (r->start + drop) % r->cap;
		r->len -= drop;
	}
	for (size_t done = 0; done < n;) {
		size_t at = (r->start + r->len) % r->cap;
		size_t k = r->cap - at < n - done ? r->cap - at : n - done;

		memcpy(r->buf + at, p + done, k);
		r->len += k;
		done += k;
	}
}

size_t sess_take(struct sess *s, char *dst, uint64_t *dropped)
{
	struct sess_ring *r = &s->ring;
	size_t n = r->len, first = r->cap - r->start < n ? r->cap - r->start : n;

	if (n) {
		memcpy(dst, r->buf + r->start, first);
		memcpy(dst + first, r->buf, n - first);
	}
	*dropped = r->dropped;
	r->start = r->len = 0;
	r->dropped = 0;
	return n;
}
