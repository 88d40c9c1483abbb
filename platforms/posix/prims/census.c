/* census.c - census.h on the posix bring-up platform and on macOS (which
 * compiles this file too): no full residue census is taken, so every
 * census is refused (prims_lacks("census")) and a census never holds an
 * item.  The process table is census_procs.c's, each OS its own. */
#include "sandproof/census.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *census_kind_name(enum census_kind k)
{
	static const char *const names[] = {"proc", "marked", "mount", "lock", "file"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void census_free(struct census *c)
{
	if (!c)
		return;
	free(c->items); /* no item was ever added here */
	memset(c, 0, sizeof(*c));
}

int census_take(const struct census_opts *o, struct census *out)
{
	(void)o;
	if (out)
		memset(out, 0, sizeof(*out));
	return -EOPNOTSUPP;
}

int census_diff(const struct census *before, const struct census *after,
		struct census *added)
{
	(void)before;
	(void)after;
	if (added)
		memset(added, 0, sizeof(*added));
	return -EOPNOTSUPP;
}

const struct census_proc *census_find(const struct census_proc *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}
