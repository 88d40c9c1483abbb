/* proc_kill.c - the caller's descendants: listed, swept, killed (contract
 * in sandproof/proc.h and proc_int.h).  Kills go through pidfds verified
 * against the process's start time, never by name. */
#include "proc_int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandproof/census.h"

static bool proc_known_has(const struct proc_known *v, size_t n, pid_t pid,
			     unsigned long long start)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].start == start)
			return true;
	return false;
}

/* Contract in proc_int.h. */
int proc_children(struct proc_known **out, size_t *n)
{
	struct census_proc *v;
	size_t nv, k = 0;
	pid_t self = getpid();
	int r = census_procs(&v, &nv);

	if (r < 0)
		return r;
	*out = calloc(nv + 1, sizeof(**out));
	if (!*out) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nv; i++)
		if (v[i].ppid == self)
			(*out)[k++] = (struct proc_known){v[i].pid, v[i].start};
	*n = k;
	free(v);
	return 0;
}

/* Security: a pid read from /proc may be recycled before we signal it.
 * The pidfd pins one process; re-reading its start time after opening the
 * pidfd proves that process is the one the table described (a descendant),
 * so an unrelated process that took over the pid is never signalled. */
static int proc_kill_verified(pid_t pid, unsigned long long start)
{
	struct census_proc now;
	int fd = pidfd_open(pid, 0), r;

	if (fd < 0)
		return -errno;
	r = census_proc_read(pid, &now);
	if (r == 0 && now.start != start)
		r = -ESRCH;
	if (r == 0 && pidfd_send_signal(fd, SIGKILL, NULL, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Contract in proc_int.h. */
int proc_sweep(const struct proc_known *pre, size_t npre, pid_t only_top, pid_t skip_pid,
	       bool kill, int wait_ms, int *killed)
{
	uint64_t deadline = proc_now_ms() + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
	struct proc_known *done = NULL;
	size_t ndone = 0, capdone = 0;
	pid_t self = getpid();
	int alive;

	for (;;) {
		struct census_proc *v;
		size_t n;
		int r = census_procs(&v, &n);

		if (r < 0) {
			free(done);
			return r;
		}
		alive = 0;
		for (size_t i = 0; i < n; i++) {
			pid_t top = census_top(v, n, i, self);
			const struct census_proc *t;

			if (!top || (only_top && (top != only_top || v[i].pid == only_top)))
				continue;
			t = census_find(v, n, top);
			if (pre && t && proc_known_has(pre, npre, t->pid, t->start))
				continue;
			if (v[i].state == 'Z' || v[i].state == 'X') {
				if (v[i].ppid == self && v[i].pid != skip_pid)
					waitpid(v[i].pid, NULL, WNOHANG);
				continue;
			}
			alive++;
			if (!kill || proc_kill_verified(v[i].pid, v[i].start) < 0)
				continue;
			if (v[i].pid == skip_pid ||
			    proc_known_has(done, ndone, v[i].pid, v[i].start))
				continue;
			if (ndone == capdone) {
				size_t nc = capdone ? capdone * 2 : 16;
				struct proc_known *nd = realloc(done, nc * sizeof(*nd));

				if (!nd) {
					free(v);
					free(done);
					return -ENOMEM;
				}
				done = nd;
				capdone = nc;
			}
			done[ndone++] = (struct proc_known){v[i].pid, v[i].start};
		}
		free(v);
		if (!kill || alive == 0 || proc_now_ms() >= deadline)
			break;
		/* SIGKILLed processes need a moment to become zombies, and
		 * their orphans a moment to re-parent to us. */
		nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
	}
	if (killed)
		*killed = (int)ndone;
	free(done);
	return alive;
}

int proc_kill_descendants(int wait_ms)
{
	int killed = 0;
	int r = proc_sweep(NULL, 0, 0, 0, true, wait_ms > 0 ? wait_ms : PROC_KILL_WAIT_MS,
			     &killed);

	if (r < 0)
		return r;
	/* A last pass reaps the zombies the kills just made. */
	proc_sweep(NULL, 0, 0, 0, false, 0, NULL);
	return killed;
}
