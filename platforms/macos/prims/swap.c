/* swap.c - swap.h on the macOS platform layer: the exchange is
 * renamex_np(RENAME_SWAP), macOS's atomic swap of two names on one
 * volume; the swapper loops it in a child process.
 *
 * macOS has no parent-death signal: the swapper checks between exchanges
 * that its parent is still the harness that started it and exits
 * otherwise, so a harness killed mid-race leaves no swapper for longer
 * than one exchange.  The posix-sim has no atomic exchange (renameat2 is
 * Linux's, and the build is held to POSIX): every call is refused there
 * (prims_lacks("swap")). */
#include "sandproof/swap.h"
#include "prims_common.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SWAP_STOP_WAIT_MS 2000

struct swapper {
	pid_t pid;
	struct swap_shm *shm;
	char *a, *b;
	struct stat sa, sb; /* the entries at a and b when the loop started */
};

static int exchange(const char *a, const char *b)
{
#ifdef __APPLE__
	return renamex_np(a, b, RENAME_SWAP) < 0 ? -errno : 0;
#else
	(void)a;
	(void)b;
	return -EOPNOTSUPP;
#endif
}

int swap_exchange(const char *a, const char *b)
{
	if (!a || !b)
		return -EINVAL;
	return exchange(a, b);
}

int swap_pid(const struct swapper *s)
{
	return s ? s->pid : -1;
}

static void swap_free(struct swapper *s)
{
	if (s->shm)
		munmap(s->shm, sizeof(*s->shm));
	free(s->a);
	free(s->b);
	free(s);
}

/* The loop: no allocation, no stdio, only the exchange and two atomics. */
_Noreturn static void swap_loop(struct swapper *s, pid_t parent)
{
	uint64_t n = 0;

	while (!__atomic_load_n(&s->shm->stop, __ATOMIC_ACQUIRE) && getppid() == parent) {
		int rc = exchange(s->a, s->b);

		if (rc < 0) {
			__atomic_store_n(&s->shm->err, -rc, __ATOMIC_RELEASE);
			_exit(1);
		}
		__atomic_store_n(&s->shm->count, ++n, __ATOMIC_RELEASE);
	}
	_exit(0);
}

/* A new swapper for a and b (*out, owned): the paths and their entries,
 * the pair tried there and back once, the shared counters mapped.  0 or
 * -errno (nothing left allocated). */
static int swap_new(const char *a, const char *b, struct swapper **out)
{
	struct swapper *s = calloc(1, sizeof(*s));
	int r = s ? 0 : -ENOMEM;

	if (r == 0 && (!(s->a = strdup(a)) || !(s->b = strdup(b))))
		r = -ENOMEM;
	if (r == 0)
		r = swap_pair_prepare(a, b, &s->sa, &s->sb, exchange);
	if (r == 0) {
		s->shm = mmap(NULL, sizeof(*s->shm), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANON, -1, 0);
		if (s->shm == MAP_FAILED) {
			s->shm = NULL;
			r = -ENOMEM;
		}
	}
	if (r < 0 && s)
		swap_free(s);
	*out = r < 0 ? NULL : s;
	return r;
}

int swap_start(const char *a, const char *b, struct swapper **out)
{
	pid_t parent = getpid();
	struct swapper *s = NULL;
	int r = a && b && out ? swap_new(a, b, &s) : -EINVAL;

	if (r == 0 && (s->pid = fork()) < 0) {
		r = -errno;
		swap_free(s);
		s = NULL;
	}
	if (s && s->pid == 0)
		swap_loop(s, parent);
	if (out)
		*out = s;
	return r;
}

/* Wait for the (unreaped) swapper to end by itself, else kill it. */
static void swap_reap(pid_t pid)
{
	struct timespec tick = {0, 10 * 1000 * 1000};

	for (int waited = 0; waited < SWAP_STOP_WAIT_MS; waited += 10) {
		pid_t r = waitpid(pid, NULL, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL); /* our unreaped child: the pid cannot be recycled */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int swap_stop(struct swapper *s, uint64_t *exchanges)
{
	int r, err;

	if (!s)
		return -EINVAL;
	__atomic_store_n(&s->shm->stop, 1, __ATOMIC_RELEASE);
	swap_reap(s->pid);
	if (exchanges)
		*exchanges = __atomic_load_n(&s->shm->count, __ATOMIC_ACQUIRE);
	err = __atomic_load_n(&s->shm->err, __ATOMIC_ACQUIRE);
	r = swap_pair_restore(s->a, s->b, &s->sa, &s->sb, err, exchange);
	swap_free(s);
	return r;
}

int swap_junction(const char *link, const char *target)
{
	(void)link;
	(void)target;
	return -EOPNOTSUPP; /* junctions are Windows's */
}
