/* protect_visible.c - how long a created protected name stays visible on
 * the host (issue 3, META): from a child's mkdir of a protected name until
 * the monitor's cleanup has removed it.
 *
 * One child plays the sandboxed command; the parent runs the supervisor's
 * loop: poll(monitor fd) -> protect_monitor_service() -> on a violation,
 * protect_monitor_cleanup() at once.  Per iteration the child takes a
 * CLOCK_MONOTONIC timestamp just before mkdir() and stores it in shared
 * memory; the parent takes one right after cleanup returned.  The
 * difference bounds the visibility window from above (it also counts the
 * child's mkdir itself).
 *
 * usage: protect_visible [-n ITERATIONS] [--nested]
 *   default   the protected name is ".agents", absent: mkdir .agents
 *   --nested  the protected name is ".git/hooks", with .git absent: the
 *             child makes .git (untimed), then .git/hooks (timed), so the
 *             watch-then-scan path for a new ancestor is measured
 * Prints min / median / p99 / max in microseconds.  Never run as a test. */
#include "protect.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sandboxed command's part: on each go byte, timestamp then mkdir. */
static void child(int go, const char *ws, bool nested, int64_t *t0, long n)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", ws, nested ? ".git" : ".agents");
	snprintf(b, sizeof(b), "%s/.git/hooks", ws);
	for (long i = 0; i < n; i++) {
		char c;

		if (read(go, &c, 1) != 1)
			_exit(2);
		if (nested && mkdir(a, 0755) != 0)
			_exit(3);
		__atomic_store_n(&t0[i], now_ns(), __ATOMIC_RELEASE);
		if (mkdir(nested ? b : a, 0755) != 0)
			_exit(4);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	static const char *const flat[] = { ".agents" };
	static const char *const deep[] = { ".git/hooks" };
	char base[64] = "/tmp/protect_visible.XXXXXX", ws[128], git[160];
	struct protect_event ev[8];
	struct protect_plan plan;
	struct protect_mon *mon;
	struct utsname u;
	int64_t *t0, *vis;
	bool nested = false;
	long n = 1000, bad = 0, done_n = 0;
	int go[2], r, st;
	struct strv names;
	pid_t pid;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "--nested"))
			nested = true;
		else {
			fprintf(stderr, "usage: %s [-n ITERATIONS] "
				"[--nested]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	names.v = (char **)(nested ? deep : flat);
	names.n = 1;
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(git, sizeof(git), "%s/.git", ws);
	if (mkdir(ws, 0755) != 0) {
		perror("mkdir");
		rmdir(base);
		return 1;
	}
	r = protect_plan(ws, &names, &plan);
	if (r == 0) {
		r = protect_monitor_start(&plan, 1, &mon);
		protect_plan_free(&plan);
	} else {
		fprintf(stderr, "plan: %s\n", plan.err);
	}
	t0 = mmap(NULL, (size_t)n * sizeof(*t0), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	vis = calloc((size_t)n, sizeof(*vis));
	if (r < 0 || t0 == MAP_FAILED || !vis || pipe2(go, O_CLOEXEC) != 0) {
		fprintf(stderr, "setup failed: %s\n", strerror(r < 0 ? -r :
								errno));
		rmdir(ws);
		rmdir(base);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child(go[0], ws, nested, t0, n);
	}
	close(go[0]);

	for (long i = 0; i < n; i++) {
		struct pollfd pfd = { protect_monitor_fd(mon), POLLIN, 0 };
		int64_t t1;
		int k;

		if (write(go[1], "g", 1) != 1)
			break;
		for (;;) {
			if (poll(&pfd, 1, 5000) <= 0) {
				fprintf(stderr, "iteration %ld: no event\n", i);
				bad++;
				goto done;
			}
			if (protect_monitor_service(mon, ev, 8) > 0)
				break;
		}
		k = protect_monitor_cleanup(mon, ev, 8);
		t1 = now_ns();
		if (k != 1 || ev[0].kind != PROTECT_EV_REMOVED)
			bad++;
		vis[i] = t1 - __atomic_load_n(&t0[i], __ATOMIC_ACQUIRE);
		/* Untimed reset of the ancestor for the next round. */
		if (nested && rmdir(git) != 0)
			bad++;
		done_n++;
	}
done:
	close(go[1]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		bad++;
	protect_monitor_free(mon);
	rmdir(git);
	rmdir(ws);
	rmdir(base);

	if (!done_n) {
		fprintf(stderr, "no iteration completed\n");
		return 1;
	}
	n = done_n;
	qsort(vis, (size_t)n, sizeof(*vis), cmp64);
	uname(&u);
	printf("protect_visible: %s, %ld iterations, kernel %s %s\n",
	       nested ? "nested (.git then .git/hooks)" : "flat (.agents)", n,
	       u.release, u.machine);
	printf("visible_us min %.1f median %.1f p99 %.1f max %.1f\n",
	       vis[0] / 1e3, vis[n / 2] / 1e3, vis[(n * 99) / 100] / 1e3,
	       vis[n - 1] / 1e3);
	printf("anomalies %ld\n", bad);
	munmap(t0, (size_t)n * sizeof(*t0));
	free(vis);
	return bad ? 1 : 0;
}
