/* census.c - census.h on the macOS platform layer.
 *
 * The process table is libproc's (proc_listallpids, proc_pidinfo
 * PROC_PIDTBSDINFO) on macOS: census_procs, census_proc_read and
 * census_top answer from it.  A full residue census (marked command
 * lines, mounts, locks, files) is not built here: census_take and
 * census_diff refuse (prims_lacks("census") says why), never a census
 * that silently misses a kind.  The posix-sim has no libproc: every call
 * is refused. */
#include "sandproof/census.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#ifdef __APPLE__
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
#else
int census_procs(struct census_proc **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	return -EOPNOTSUPP; /* posix-sim: no libproc */
}

int census_proc_read(pid_t pid, struct census_proc *p)
{
	(void)pid;
	memset(p, 0, sizeof(*p));
	return -EOPNOTSUPP;
}
#endif

const struct census_proc *census_find(const struct census_proc *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
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
