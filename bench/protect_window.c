/* protect_window.c - end-to-end: how long does a protected name created by
 * a sandboxed command stay visible on the host, through the real runner?
 *
 * A host observer watches the workspace with inotify and timestamps the
 * IN_CREATE and IN_DELETE events of ".agents" while `sandproof-ref exec`
 * runs `mkdir .agents` in it, N times.  The difference is the window in
 * which another host process could have seen the name (both timestamps are
 * taken when the observer reads the event, so queueing delays cancel out
 * to first order).  Usage: protect_window SANDPROOF_REF [N] */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	char ws[] = "/tmp/sp-window-XXXXXX", cmd[512];
	int n = argc > 2 ? atoi(argv[2]) : 200, got = 0, fd;
	double *w;

	if (argc < 2 || n <= 0 || !mkdtemp(ws)) {
		fprintf(stderr, "usage: protect_window SANDPROOF_REF [N]\n");
		return 2;
	}
	chmod(ws, 0755);
	w = calloc((size_t)n, sizeof(*w));
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!w || fd < 0 || inotify_add_watch(fd, ws, IN_CREATE | IN_DELETE) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		double created = -1;
		pid_t pid = fork();

		if (pid == 0) {
			execl(argv[1], argv[1], "exec", "--write", ws, "--cwd", ws, "--",
			      "mkdir", ".agents", (char *)NULL);
			_exit(127);
		}
		for (;;) {
			char buf[4096] __attribute__((aligned(8)));
			struct pollfd pf = {fd, POLLIN, 0};
			ssize_t len;

			if (poll(&pf, 1, 5000) <= 0)
				break;
			len = read(fd, buf, sizeof(buf));
			for (char *p = buf; len > 0 && p < buf + len;) {
				struct inotify_event *e = (struct inotify_event *)p;

				if (e->len && strcmp(e->name, ".agents") == 0) {
					if (e->mask & IN_CREATE)
						created = now_us();
					else if ((e->mask & IN_DELETE) && created >= 0)
						w[got++] = now_us() - created;
				}
				p += sizeof(*e) + e->len;
			}
			if (got > i || created < 0)
				break;
		}
		waitpid(pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", ws);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", ws);
	if (got == 0) {
		fprintf(stderr, "no create/delete pair observed\n");
		return 1;
	}
	qsort(w, (size_t)got, sizeof(*w), cmp);
	printf("protected name visible on the host (us), %d runs: min %.0f median %.0f p99 %.0f max %.0f\n",
	       got, w[0], w[got / 2], w[(got * 99) / 100], w[got - 1]);
	return got == n ? 0 : 1;
}
