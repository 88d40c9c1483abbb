/* prims_common.c - the parts of the primitives seam every OS answers the
 * same way: proc.h's option defaults and result release, and prims.h's
 * names, read from the OS's one table (names.h). */
#include "names.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"

#include <stdlib.h>
#include <string.h>

void proc_opts_init(struct proc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->userns_fd = -1;
	o->netns_fd = -1;
}

void proc_result_free(struct proc_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

const char *prims_errno_name(int err)
{
	return names_errno(err);
}

const char *prims_signal_name(int sig)
{
	return names_signal(sig, NULL);
}

int prims_errno_value(const char *name)
{
	return names_errno_value(name);
}
