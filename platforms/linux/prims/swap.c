/* swap.c - see swap.h. */
#include "sandproof/swap.h"
#include "prims_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SWAP_STOP_WAIT_MS 2000

struct swapper {
	pid_t pid;
	int pidfd;
	struct swap_shm *shm;
	char *a, *b;
	struct stat sa, sb; /* the entries at a and b when the loop started */
};

int swap_exchange(const char *a, const char *b)
{
	if (!a || !b)
		return -EINVAL;
	if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0)
		return -errno;
	return 0;
}

int swap_pid(const struct swapper *s)
{
	return s ? s->pid : -1;
}

static void swap_free(struct swapper *s)
{
	if (s->pidfd >= 0)
		close(s->pidfd);
	if (s->shm)
		munmap(s->shm, sizeof(*s->shm));
	free(s->a);
	free(s->b);
	free(s);
}

/* The loop: no allocation, no stdio, only the exchange and two atomics, so
 * nothing of the parent's state (locks held by other threads at fork) can
 * stall it.  The stop flag is read between exchanges only, so the count is
 * exact when the loop ends by itself. */
_Noreturn static void swap_loop(struct swapper *s, pid_t parent)
{
	uint64_t n = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	while (!__atomic_load_n(&s->shm->stop, __ATOMIC_ACQUIRE)) {
		if (renameat2(AT_FDCWD, s->a, AT_FDCWD, s->b, RENAME_EXCHANGE) < 0) {
			__atomic_store_n(&s->shm->err, errno, __ATOMIC_RELEASE);
			_exit(1);
		}
		__atomic_store_n(&s->shm->count, ++n, __ATOMIC_RELEASE);
	}
	_exit(0);
}

int swap_start(const char *a, const char *b, struct swapper **out)
{
	struct swapper *s;
	pid_t parent = getpid();
	int r;

	if (!a || !b || !out)
		return -EINVAL;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pidfd = -1;
	s->a = strdup(a);
	s->b = strdup(b);
	if (!s->a || !s->b) {
		swap_free(s);
		return -ENOMEM;
	}
	/* There and back once: errors (EXDEV, EBUSY, ...) surface here rather
	 * than as a loop that never ran. */
	r = swap_pair_prepare(a, b, &s->sa, &s->sb, swap_exchange);
	if (r < 0) {
		swap_free(s);
		return r;
	}
	s->shm = mmap(NULL, sizeof(*s->shm), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		swap_free(s);
		return -ENOMEM;
	}
	s->pid = fork();
	if (s->pid < 0) {
		r = -errno;
		swap_free(s);
		return r;
	}
	if (s->pid == 0)
		swap_loop(s, parent);
	/* The pid is our unreaped child: it cannot be recycled before the
	 * pidfd exists, so the pidfd names exactly the swapper. */
	s->pidfd = pidfd_open(s->pid, 0);
	if (s->pidfd < 0) {
		r = -errno;
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		swap_free(s);
		return r;
	}
	*out = s;
	return 0;
}

int swap_stop(struct swapper *s, uint64_t *exchanges)
{
	struct pollfd p;
	siginfo_t si;
	int r, err;

	if (!s)
		return -EINVAL;
	__atomic_store_n(&s->shm->stop, 1, __ATOMIC_RELEASE);
	p = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
	if (poll(&p, 1, SWAP_STOP_WAIT_MS) <= 0)
		pidfd_send_signal(s->pidfd, SIGKILL, NULL, 0);
	/* ECHILD: someone reaped it already (a descendant sweep); the
	 * arrangement is restored below all the same. */
	memset(&si, 0, sizeof(si));
	while (waitid(P_PIDFD, (id_t)s->pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	if (exchanges)
		*exchanges = __atomic_load_n(&s->shm->count, __ATOMIC_ACQUIRE);
	err = __atomic_load_n(&s->shm->err, __ATOMIC_ACQUIRE);
	r = swap_pair_restore(s->a, s->b, &s->sa, &s->sb, err, swap_exchange);
	swap_free(s);
	return r;
}

int swap_junction(const char *link, const char *target)
{
	(void)link;
	(void)target;
	return -EOPNOTSUPP; /* junctions are Windows's */
}
