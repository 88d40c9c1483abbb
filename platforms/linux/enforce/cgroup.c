/* cgroup.c - see cgroup.h. */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CG_PREFIX "sandproof-"

/* Whether the comma-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, word, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The runner's own cgroup path in the hierarchy of `controller` (v1), or
 * in the unified one (controller NULL), from /proc/self/cgroup. */
static int own_path(const char *controller, char *out, size_t n)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		char *c1, *c2;

		/* "id:controllers:path"; v2 is "0::path" */
		line[strcspn(line, "\n")] = '\0';
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		if (controller ? has_word(c1 + 1, controller)
			       : (c1[1] == '\0' && strcmp(line, "0") == 0))
			rc = snprintf(out, n, "%s", c2 + 1) < (int)n ? 0 : -ENAMETOOLONG;
	}
	fclose(f);
	return rc;
}

/* The directory of cgroup `path` through a mount of type fstype (with
 * controller among its super options for v1), from /proc/self/mountinfo. */
static int mount_dir(const char *fstype, const char *controller, const char *path,
		     char *out, size_t n)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		char root[1024], mnt[1024], type[64], opts[1024];
		const char *dash = strstr(line, " - ");
		size_t rl;

		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2 ||
		    strcmp(type, fstype) != 0 || (controller && !has_word(opts, controller)))
			continue;
		/* The mount shows the subtree at root: path must lie in it. */
		rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
		if (rl && (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0')))
			continue;
		rc = snprintf(out, n, "%s%s", mnt, strcmp(path + rl, "/") == 0 ? "" : path + rl) <
		     (int)n ? 0 : -ENAMETOOLONG;
	}
	fclose(f);
	return rc;
}

bool cg_has(const char *dir, const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, F_OK) == 0;
}

static bool file_has_word(const char *dir, const char *file, const char *word)
{
	char p[PATH_MAX], buf[1024];
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *s = buf, *save = NULL, *w; (w = strtok_r(s, " \n", &save)); s = NULL)
		if (strcmp(w, word) == 0)
			return true;
	return false;
}

enum cg_version cg_locate(const char *controller, char *dir, size_t n)
{
	char path[PATH_MAX];

	/* v2: children of our cgroup get the controller only when it is in
	 * our subtree_control (delegated and enabled by whoever owns it). */
	if (own_path(NULL, path, sizeof(path)) == 0 &&
	    mount_dir("cgroup2", NULL, path, dir, n) == 0 &&
	    file_has_word(dir, "cgroup.subtree_control", controller))
		return CG_V2;
	if (own_path(controller, path, sizeof(path)) == 0 &&
	    mount_dir("cgroup", controller, path, dir, n) == 0 && access(dir, F_OK) == 0)
		return CG_V1;
	return CG_NONE;
}

/* Start time (clock ticks since boot) of pid, from /proc/PID/stat. */
static int start_time(pid_t pid, unsigned long long *out)
{
	char p[64], buf[1024], *s;
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	s = strrchr(buf, ')');
	/* after ")": state is field 3; starttime is field 22 */
	if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
			 "%*d %*d %*d %*d %*d %*d %llu", out) != 1)
		return -EIO;
	return 0;
}

/* Remove cgroups of our name shape beside ours whose runner is gone. */
static void sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char again[96], p[PATH_MAX];
		unsigned long long start, now;
		int pid;
		unsigned seq;

		if (sscanf(e->d_name, CG_PREFIX "%d-%llu-%u", &pid, &start, &seq) != 3)
			continue;
		snprintf(again, sizeof(again), CG_PREFIX "%d-%llu-%u", pid, start, seq);
		if (strcmp(again, e->d_name) != 0 || pid == getpid())
			continue;
		if (start_time(pid, &now) == 0 && now == start)
			continue; /* its runner is alive: its run */
		snprintf(p, sizeof(p), "%s/%s", parent, e->d_name);
		rmdir(p); /* EBUSY if anything is still in it: then it stays */
	}
	closedir(d);
}

int cg_make(const char *parent, char *out, size_t n)
{
	static unsigned seq;
	unsigned long long start;
	int rc = start_time(getpid(), &start);

	if (rc < 0)
		return rc;
	sweep(parent);
	if (snprintf(out, n, "%s/" CG_PREFIX "%d-%llu-%u", parent, (int)getpid(), start, seq++) >=
	    (int)n)
		return -ENAMETOOLONG;
	return mkdir(out, 0755) < 0 ? -errno : 0;
}

int cg_write(const char *dir, const char *file, const char *text)
{
	char p[PATH_MAX];
	size_t n = strlen(text);
	int fd, rc = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -errno;
	close(fd);
	return rc;
}

int cg_read_key(const char *dir, const char *file, const char *key, uint64_t *out)
{
	char p[PATH_MAX], line[256];
	size_t kl = strlen(key);
	FILE *f;
	int rc = -ENOENT;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (strncmp(line, key, kl) == 0 && line[kl] == ' ' &&
		    sscanf(line + kl + 1, "%llu", &v) == 1) {
			*out = v;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

int cg_attach(const char *dir, pid_t pid)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", (int)pid);
	return cg_write(dir, "cgroup.procs", text);
}

int cg_remove(const char *dir)
{
	struct timespec tick = {0, 2 * 1000 * 1000};

	/* The sandbox's pid 1 was reaped, so every task of the cgroup has
	 * exited; the kernel may take a moment to release the last ones. */
	for (int i = 0; i < 250; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&tick, NULL);
	}
	return -EBUSY;
}
