/* userns.c - the one id map writer (contract in userns.h). */
#include "userns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/self/<file> of the caller's own namespace, each range "in out
 * count" as identity lines "in in count" into out.  0 or -errno. */
static int userns_own_ranges(const char *file, char *out, size_t outlen)
{
	char path[32], text[USERNS_MAP_MAX * 4], *p, *end;
	size_t used = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	for (p = text; *p; p = *end ? end + 1 : end) {
		unsigned long in, outside, count;
		int k;

		end = strchrnul(p, '\n');
		if (sscanf(p, "%lu %lu %lu", &in, &outside, &count) != 3)
			continue;
		k = snprintf(out + used, outlen - used, "%lu %lu %lu\n", in, in, count);
		if (k < 0 || (size_t)k >= outlen - used)
			return -E2BIG;
		used += (size_t)k;
	}
	return used ? 0 : -ENOENT;
}

int userns_maps_plan(enum userns_map mode, struct userns_maps *m, const char **failed)
{
	int rc;

	if (mode == USERNS_MAP_AUTO)
		mode = geteuid() == 0 ? USERNS_MAP_ALL : USERNS_MAP_OWN;
	memset(m, 0, sizeof(*m));
	if (mode == USERNS_MAP_ALL) {
		if (failed)
			*failed = "uid_map";
		rc = userns_own_ranges("uid_map", m->uid, sizeof(m->uid));
		if (rc < 0)
			return rc;
		if (failed)
			*failed = "gid_map";
		return userns_own_ranges("gid_map", m->gid, sizeof(m->gid));
	}
	if (mode != USERNS_MAP_OWN)
		return -EINVAL;
	m->deny_setgroups = true;
	snprintf(m->uid, sizeof(m->uid), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(m->gid, sizeof(m->gid), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	return 0;
}

/* Write text to /proc/<pid>/<name> (pid 0: self) in one write, as the
 * kernel requires of a map.  0 or -errno. */
static int userns_write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	ssize_t len = (ssize_t)strlen(text), n;
	int fd, rc = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, (size_t)len);
	if (n != len)
		rc = n < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

int userns_maps_write(pid_t pid, const struct userns_maps *m, const char **failed)
{
	static const char *const file[] = {"setgroups", "uid_map", "gid_map"};
	const char *text[] = {m->deny_setgroups ? "deny" : NULL, m->uid, m->gid};

	for (int i = 0; i < 3; i++) {
		int rc = text[i] ? userns_write_file(pid, file[i], text[i]) : 0;

		if (rc < 0) {
			if (failed)
				*failed = file[i];
			return rc;
		}
	}
	return 0;
}

int userns_write_maps(pid_t pid, enum userns_map mode, const char **failed)
{
	struct userns_maps m;
	int rc = userns_maps_plan(mode, &m, failed);

	return rc < 0 ? rc : userns_maps_write(pid, &m, failed);
}
