/* proc.c - proc.h on windows: not yet.  The posix plain launch (fork,
 * setsid, process groups) has no Windows form; the harness's launcher
 * without fork (a job object per run, CreateProcess with an explicit
 * handle list) replaces this file.  Until then every call is refused with
 * -EOPNOTSUPP before anything starts: nothing is ever run unsupervised. */
#include "sandproof/proc.h"

#include <errno.h>
#include <string.h>

int proc_init(void)
{
	return -EOPNOTSUPP;
}

int proc_die_with_parent(void)
{
	return -EOPNOTSUPP; /* a job object with kill-on-close will give it */
}

int proc_kill_descendants(int wait_ms)
{
	(void)wait_ms;
	return -EOPNOTSUPP;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	(void)o;
	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	return -EOPNOTSUPP; /* unsupported on windows: no launcher yet */
}
