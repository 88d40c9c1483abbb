/* swap.c - swap.h on the posix bring-up platform: POSIX has no atomic
 * exchange of two names, so every call is refused (prims_lacks("swap")). */
#include "sandproof/swap.h"

#include <errno.h>
#include <stddef.h>

int swap_exchange(const char *a, const char *b)
{
	(void)a;
	(void)b;
	return -EOPNOTSUPP;
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

int swap_junction(const char *link, const char *target)
{
	(void)link;
	(void)target;
	return -EOPNOTSUPP; /* junctions are Windows's */
}
