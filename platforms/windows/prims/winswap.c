/* winswap.c - the junction swapper's loop (winswap.h), portable C. */
#include "winswap.h"

#include "reparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A target the junction encoder accepts (its rules are the junction's:
 * checked here so the loop never meets a target it cannot write). */
static int target_check(const char *t)
{
	uint8_t buf[REPARSE_MAX_SIZE];
	size_t len = 0;

	return reparse_encode_junction(t, buf, sizeof(buf), &len);
}

int winswap_init(struct winswap *s, const char *original, const char *other)
{
	int rc;

	if (!s)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (!original || !other || strcmp(original, other) == 0)
		return -EINVAL;
	if ((rc = target_check(original)) < 0 || (rc = target_check(other)) < 0)
		return rc == -ENAMETOOLONG ? rc : -EINVAL;
	s->target[0] = strdup(original);
	s->target[1] = strdup(other);
	if (!s->target[0] || !s->target[1]) {
		winswap_free(s);
		return -ENOMEM;
	}
	return 0;
}

/* Point the link at target[to]; s->at follows only a success. */
static int flip(struct winswap *s, const struct winswap_ops *o, void *ctx, int to)
{
	int rc = o->retarget(ctx, s->target[to]);

	if (rc == 0)
		s->at = to;
	return rc > 0 ? -EIO : rc; /* an op answering > 0 broke its contract */
}

int winswap_probe(struct winswap *s, const struct winswap_ops *o, void *ctx)
{
	int rc;

	if (!s || !o || !s->target[0])
		return -EINVAL;
	if ((rc = flip(s, o, ctx, 1)) < 0)
		return rc;
	return flip(s, o, ctx, 0);
}

int winswap_loop(struct winswap *s, const struct winswap_ops *o, void *ctx)
{
	if (!s || !o || !s->target[0])
		return -EINVAL;
	while (!o->stopping(ctx)) {
		int rc = flip(s, o, ctx, !s->at);

		if (rc < 0) {
			s->err = rc;
			return rc;
		}
		s->exchanges++;
	}
	return 0;
}

int winswap_restore(struct winswap *s, const struct winswap_ops *o, void *ctx)
{
	if (!s || !o || !s->target[0])
		return -EINVAL;
	return s->at == 0 ? 0 : flip(s, o, ctx, 0);
}

void winswap_free(struct winswap *s)
{
	if (!s)
		return;
	free(s->target[0]);
	free(s->target[1]);
	s->target[0] = s->target[1] = NULL;
}
