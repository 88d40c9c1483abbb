/* census.c - census.h on windows, copied from the posix bring-up platform:
 * no residue census and no process table yet, so every call is refused
 * (prims_lacks("census": "unsupported on windows: ...")) and a census never
 * holds an item.  A Windows census (job objects, handles, toolhelp
 * snapshots) replaces this file. */
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
int census_procs(struct census_proc **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	return -EOPNOTSUPP;
}

int census_proc_read(pid_t pid, struct census_proc *p)
{
	(void)pid;
	memset(p, 0, sizeof(*p));
	return -EOPNOTSUPP;
}

pid_t census_top(const struct census_proc *v, size_t n, size_t i, pid_t self)
{
	(void)v;
	(void)n;
	(void)i;
	(void)self;
	return 0; /* no process table: nothing is known to descend */
}
