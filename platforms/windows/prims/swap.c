/* swap.c - swap.h on windows: a swap is junction.h's winjct_swap (three
 * renames, the windows in which one name is absent documented there and
 * in swap.h), a junction is winjct_create or, over an existing one,
 * winjct_retarget.  No swapper yet
 * (prims_lacks("swapper")): every swap_start is refused. */
#include "sandproof/swap.h"

#include "junction.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

int swap_exchange(const char *a, const char *b)
{
	if (!a || !b)
		return -EINVAL;
	return winjct_swap(a, b);
}

/* target with '\\' separators: the harness spells paths "C:/x/y", a
 * junction's target is "C:\\x\\y" (reparse.c's encoder rules). */
static int junction_target(const char *target, char *out, size_t cap)
{
	size_t n = strlen(target);

	if (n >= cap)
		return -ENAMETOOLONG;
	for (size_t i = 0; i <= n; i++)
		out[i] = target[i] == '/' ? '\\' : target[i];
	return 0;
}

int swap_junction(const char *link, const char *target)
{
	struct reparse_link old;
	char t[4096];
	int rc;

	if (!link || !target)
		return -EINVAL;
	if ((rc = junction_target(target, t, sizeof(t))) < 0)
		return rc;
	if (winjct_read(link, &old) == 0) {
		reparse_link_free(&old);
		return winjct_retarget(link, t); /* checks again: a junction */
	}
	return winjct_create(link, t); /* -EEXIST when link is anything else */
}

int swap_start(const char *a, const char *b, struct swapper **out)
{
	(void)a;
	(void)b;
	*out = NULL;
	return -EOPNOTSUPP;
}

int swap_pid(const struct swapper *s)
{
	(void)s;
	return -1;
}

int swap_stop(struct swapper *s, uint64_t *exchanges)
{
	(void)s; /* always NULL: swap_start never made one */
	if (exchanges)
		*exchanges = 0;
	return -EINVAL;
}
