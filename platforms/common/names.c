/* names.c - the lookups of names.h over this OS's tables (names_table.c of
 * platforms/<os>/common): portable, one copy for every OS. */
#include "names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *names_errno(int err)
{
	static _Thread_local char buf[24];

	for (size_t i = 0; i < names_nerrs; i++)
		if (names_errs[i].v == err)
			return names_errs[i].name;
	snprintf(buf, sizeof(buf), "ERRNO_%d", err);
	return buf;
}

int names_errno_value(const char *name)
{
	for (size_t i = 0; i < names_nerrs; i++)
		if (strcmp(names_errs[i].name, name) == 0)
			return names_errs[i].v;
	return -1;
}

const char *names_signal(int sig, bool *known)
{
	static _Thread_local char buf[24];

	for (size_t i = 0; i < names_nsigs; i++)
		if (names_sigs[i].v == sig) {
			if (known)
				*known = true;
			return names_sigs[i].name;
		}
	if (known)
		*known = false;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

int names_signal_value(const char *name)
{
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < names_nsigs; i++)
		if (strcasecmp(names_sigs[i].name + 3, name) == 0)
			return names_sigs[i].v;
	return -1;
}
