/* bench/inotify_close.c - what ending an inotify group costs the process
 * that ends it (bench/RESULTS.md, "The inotify teardown").  Never a test.
 *
 *   cc -O2 -o inotify_close bench/inotify_close.c
 *   ./inotify_close DIR [RUNS]        (DIR: an existing directory to watch)
 *
 * For each way of ending a group that held one mark on DIR it prints the
 * median, p90 and max time the ending process spent, over RUNS (default 60)
 * groups, 2 ms apart.  Run it once on an idle machine and once with both
 * CPUs busy (e.g. two `sh -c 'while :; do :; done'` started beside it):
 * close() waits for the kernel's fsnotify mark reaper (a kworker running an
 * SRCU grace period), so its cost is how soon a kworker gets a CPU. */
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The last reference handed to an io_uring ring, whose teardown (and the
 * group's with it) runs in a kernel worker. */
static int end_async(int fd)
{
	struct io_uring_params p;
	long ring;

	memset(&p, 0, sizeof(p));
	ring = syscall(SYS_io_uring_setup, 1, &p);
	if (ring < 0)
		return -1;
	if (syscall(SYS_io_uring_register, (int)ring, IORING_REGISTER_FILES, &fd, 1) < 0) {
		close((int)ring);
		return -1;
	}
	close(fd);
	close((int)ring);
	return 0;
}

enum way { NO_MARK, CLOSE, RM_CLOSE, RM_ASYNC, N_WAYS };

static const char *const way_name[] = {
	"close, no mark ever added",
	"close, 1 mark",
	"rm_watch, then close",
	"rm_watch, then io_uring hand-off",
};

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 60;
	double *v;

	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: %s DIR [RUNS]\n", argv[0]);
		return 2;
	}
	v = calloc((size_t)runs, sizeof(*v));
	if (!v)
		return 1;
	for (int w = 0; w < N_WAYS; w++) {
		for (int i = 0; i < runs; i++) {
			int fd = inotify_init1(IN_CLOEXEC), wd = -1;
			double t;

			if (fd < 0 || (w != NO_MARK && (wd = inotify_add_watch(fd, argv[1], IN_CREATE)) < 0)) {
				perror("inotify");
				return 1;
			}
			t = now_ms();
			if (w == RM_CLOSE || w == RM_ASYNC)
				inotify_rm_watch(fd, wd);
			if (w != RM_ASYNC || end_async(fd) < 0)
				close(fd);
			v[i] = now_ms() - t;
			usleep(2000);
		}
		qsort(v, (size_t)runs, sizeof(*v), cmp);
		printf("%-36s median %7.3f  p90 %7.3f  max %7.3f ms  (n=%d)\n", way_name[w],
		       v[runs / 2], v[runs * 9 / 10], v[runs - 1], runs);
	}
	free(v);
	return 0;
}
