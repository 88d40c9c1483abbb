/* proctree.c - see proctree.h. */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct pinfo {
	pid_t pid, ppid;
	char state;
	int mark;
};

/* Parse /proc/<pid>/stat: the command name may hold spaces and ')', so
 * fields are read after the last ')'. */
static int stat_read(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %c %d", state, ppid) != 2)
		return -EIO;
	return 0;
}

static int scan(struct pinfo **out, size_t *n_out)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct pinfo *v = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct pinfo pi = {0};

		if (*end || pid <= 0)
			continue;
		pi.pid = (pid_t)pid;
		if (stat_read(pi.pid, &pi.ppid, &pi.state) < 0)
			continue; /* gone already */
		if (n == cap) {
			struct pinfo *nv;

			cap = cap ? cap * 2 : 512;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = pi;
	}
	closedir(d);
	*out = v;
	*n_out = n;
	return 0;
}

/* Mark descendants of self; returns how many live ones there are. */
static int mark(struct pinfo *v, size_t n, pid_t self)
{
	int changed = 1, live = 0;

	while (changed) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].mark)
				continue;
			int hit = v[i].ppid == self;

			for (size_t j = 0; !hit && j < n; j++)
				hit = v[j].mark && v[j].pid == v[i].ppid;
			if (hit) {
				v[i].mark = 1;
				changed = 1;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		live += v[i].mark && v[i].state != 'Z';
	return live;
}

/* Is pid, as it is now, a descendant of self?  Walks ppid links. */
static int is_descendant(pid_t pid, pid_t self)
{
	for (int depth = 0; depth < 4096; depth++) {
		pid_t ppid;
		char st;

		if (stat_read(pid, &ppid, &st) < 0)
			return 0;
		if (ppid == self)
			return 1;
		if (ppid <= 1)
			return 0;
		pid = ppid;
	}
	return 0;
}

static void kill_one(pid_t pid, pid_t self)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return;
	/* The pidfd pins one process.  If that process is still the one at
	 * `pid`, the re-check below is about it; if it died meanwhile the
	 * signal goes nowhere.  Either way no unrelated process is hit. */
	if (is_descendant(pid, self))
		syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	close(fd);
}

int proctree_count(pid_t self)
{
	struct pinfo *v;
	size_t n;
	int rc = scan(&v, &n);

	if (rc < 0)
		return rc;
	rc = mark(v, n, self);
	free(v);
	return rc;
}

int proctree_kill(pid_t self, int budget_ms)
{
	struct timespec t0, now, pause = {0, 1000000};

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pinfo *v;
		size_t n;
		int live, rc = scan(&v, &n);

		if (rc < 0)
			return rc;
		live = mark(v, n, self);
		for (size_t i = 0; i < n; i++)
			if (v[i].mark && v[i].state != 'Z')
				kill_one(v[i].pid, self);
		free(v);
		if (live == 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000 > budget_ms)
			return live;
		nanosleep(&pause, NULL);
	}
}
