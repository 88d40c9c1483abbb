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

/* Shared between the harness and its swapper; the swapper is the only
 * writer of count and err, the harness the only writer of stop. */
struct swap_shm {
	uint64_t count;
	int stop;
	int err;
};

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

/* s filled with the paths and their entries, the pair tried there and
 * back once (errors surface here, not as a loop that never ran). */
static int swap_prepare(struct swapper *s, const char *a, const char *b)
{
	int r;

	s->a = strdup(a);
	s->b = strdup(b);
	if (!s->a || !s->b)
		return -ENOMEM;
	if (lstat(a, &s->sa) < 0 || lstat(b, &s->sb) < 0)
		return -errno;
	r = exchange(a, b);
	if (r == 0 && (r = exchange(a, b)) < 0)
		return r == -ENOENT ? -ESTALE : r;
	if (r < 0)
		return r;
	s->shm = mmap(NULL, sizeof(*s->shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANON, -1, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		return -ENOMEM;
	}
	return 0;
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
	r = swap_prepare(s, a, b);
	if (r == 0 && (s->pid = fork()) < 0)
		r = -errno;
	if (r < 0) {
		swap_free(s);
		return r;
	}
	if (s->pid == 0)
		swap_loop(s, parent);
	*out = s;
	return 0;
}

static bool swap_same(const struct stat *x, const struct stat *y)
{
	return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
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
	struct stat now;
	int r = 0, err;

	if (!s)
		return -EINVAL;
	__atomic_store_n(&s->shm->stop, 1, __ATOMIC_RELEASE);
	swap_reap(s->pid);
	if (exchanges)
		*exchanges = __atomic_load_n(&s->shm->count, __ATOMIC_ACQUIRE);
	err = __atomic_load_n(&s->shm->err, __ATOMIC_ACQUIRE);
	/* Restore by identity, not by parity. */
	if (lstat(s->a, &now) < 0) {
		r = -errno;
	} else if (swap_same(&now, &s->sb)) {
		r = exchange(s->a, s->b);
		if (r == 0 && lstat(s->a, &now) == 0 && !swap_same(&now, &s->sa))
			r = -ESTALE;
	} else if (!swap_same(&now, &s->sa)) {
		r = -ESTALE;
	}
	if (r == 0 && err)
		r = -err;
	swap_free(s);
	return r;
}
