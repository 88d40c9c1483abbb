/* census_procs.c - census.h's process table on macOS: libproc's
 * (proc_listallpids, proc_pidinfo PROC_PIDTBSDINFO) gives census_procs,
 * census_proc_read and census_top.  The rest of census.h (a full residue
 * census: marked command lines, mounts, locks, files) is posix/'s
 * census.c, which refuses it (prims_lacks("census")), never a census that
 * silently misses a kind.  macOS only: the posix-sim has no libproc and
 * compiles posix/prims/census_procs.c (refused) instead (CMakeLists.txt). */
#include "sandproof/census.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libproc.h>
#include <sys/proc.h>
#include <sys/proc_info.h>

int census_proc_read(pid_t pid, struct census_proc *p)
{
	struct proc_bsdinfo bi;
	int n;

	memset(p, 0, sizeof(*p));
	n = proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, (int)sizeof(bi));
	if (n != (int)sizeof(bi))
		return errno == ESRCH || n == 0 ? -ESRCH : -errno;
	p->pid = (pid_t)bi.pbi_pid;
	p->ppid = (pid_t)bi.pbi_ppid;
	p->pgid = (pid_t)bi.pbi_pgid;
	p->sid = getsid(pid) < 0 ? 0 : getsid(pid);
	/* Start time in microseconds since the epoch: an identity, like
	 * Linux's ticks since boot (a recycled pid starts later). */
	p->start = (unsigned long long)bi.pbi_start_tvsec * 1000000ULL + bi.pbi_start_tvusec;
	p->state = bi.pbi_status == SZOMB ? 'Z' : bi.pbi_status == SSTOP ? 'T' : 'S';
	snprintf(p->comm, sizeof(p->comm), "%s", bi.pbi_comm);
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct census_proc *)a)->pid, y = ((const struct census_proc *)b)->pid;

	return (x > y) - (x < y);
}

int census_procs(struct census_proc **out, size_t *n)
{
	int cap = proc_listallpids(NULL, 0), got;
	pid_t *pids;

	*out = NULL;
	*n = 0;
	if (cap <= 0)
		return -errno;
	cap += 64; /* processes started since */
	pids = calloc((size_t)cap, sizeof(*pids));
	*out = calloc((size_t)cap, sizeof(**out));
	if (!pids || !*out) {
		free(pids);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	got = proc_listallpids(pids, cap * (int)sizeof(*pids));
	for (int i = 0; i < got && i < cap; i++)
		if (census_proc_read(pids[i], &(*out)[*n]) == 0)
			(*n)++;
	free(pids);
	qsort(*out, *n, sizeof(**out), pid_cmp);
	return 0;
}

pid_t census_top(const struct census_proc *v, size_t n, size_t i, pid_t self)
{
	/* Walk parents; bounded by n so a cycle (a table read while pids were
	 * recycled) cannot loop. */
	const struct census_proc *p = &v[i];

	for (size_t hops = 0; p && hops < n; hops++) {
		if (p->ppid == self)
			return p->pid;
		if (p->ppid <= 1)
			return 0;
		p = census_find(v, n, p->ppid);
	}
	return 0;
}
