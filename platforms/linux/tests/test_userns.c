/* test_userns.c - the one id map writer (common/userns.h).
 *
 * A child unshares a user namespace and waits; the test writes its maps
 * with userns_write_maps() and reads the kernel's own view of them back
 * (/proc/PID/uid_map, gid_map, setgroups), and the child reports the ids it
 * has inside.  As root the ALL and AUTO modes map every id range of this
 * namespace; unprivileged, ALL must fail (closed: -EPERM, naming the map)
 * and AUTO is OWN.  A child that writes its own maps (pid 0) after
 * planning them before its unshare gets the same identity. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "userns.h"

struct kid {
	pid_t pid;
	int go;   /* write end: the maps are written */
	int back; /* read end: "ready", then the child's ids */
};

/* A child in a new user namespace, waiting for its maps; it then reports
 * its effective uid and gid as seen inside.  -1 when user namespaces are
 * unavailable. */
static int kid_start(struct kid *k)
{
	int go[2], back[2];
	char c;

	if (pipe(go) < 0 || pipe(back) < 0)
		return -1;
	k->pid = fork();
	if (k->pid == 0) {
		unsigned ids[2];

		close(go[1]);
		close(back[0]);
		c = unshare(CLONE_NEWUSER) == 0 ? 'R' : 'E';
		if (write(back[1], &c, 1) != 1 || c == 'E' || read(go[0], &c, 1) != 1)
			_exit(1);
		ids[0] = (unsigned)geteuid();
		ids[1] = (unsigned)getegid();
		_exit(write(back[1], ids, sizeof(ids)) == sizeof(ids) ? 0 : 1);
	}
	close(go[0]);
	close(back[1]);
	k->go = go[1];
	k->back = back[0];
	if (read(k->back, &c, 1) != 1 || c != 'R') {
		close(k->go);
		close(k->back);
		waitpid(k->pid, NULL, 0);
		return -1;
	}
	return 0;
}

/* Release the child and collect the ids it saw inside (false if none). */
static bool kid_finish(struct kid *k, unsigned ids[2])
{
	bool got;

	(void)!write(k->go, "g", 1);
	close(k->go);
	got = read(k->back, ids, 2 * sizeof(unsigned)) == 2 * sizeof(unsigned);
	close(k->back);
	waitpid(k->pid, NULL, 0);
	return got;
}

/* /proc/<pid>/<name> (pid 0: self), whitespace runs squeezed to one space. */
static void slurp(pid_t pid, const char *name, char *out, size_t n)
{
	char path[64], raw[2048];
	ssize_t len;
	size_t k = 0;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	for (ssize_t i = 0; i < len && k + 1 < n; i++) {
		char c = raw[i] == '\t' ? ' ' : raw[i];

		if (c == ' ' && (k == 0 || out[k - 1] == ' ' || out[k - 1] == '\n'))
			continue;
		if (c == '\n' && k && out[k - 1] == ' ')
			k--;
		out[k++] = c;
	}
	out[k] = '\0';
}

/* This namespace's ranges as identity lines, as the kernel prints a child
 * map read from here: "a a c\n" per range. */
static void own_identity(const char *name, char *out, size_t n)
{
	char self[2048], *line, *save = NULL;
	size_t k = 0;

	slurp(0, name, self, sizeof(self));
	out[0] = '\0';
	for (line = strtok_r(self, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long a, b, c;

		if (sscanf(line, "%lu %lu %lu", &a, &b, &c) == 3)
			k += (size_t)snprintf(out + k, n - k, "%lu %lu %lu\n", a, a, c);
	}
}

static void check_own(enum userns_map mode, const char *label)
{
	char want[64], got[2048];
	unsigned ids[2] = {~0u, ~0u};
	const char *failed = NULL;
	bool got_ids;
	struct kid k;
	int rc;

	if (kid_start(&k) < 0) {
		t_skipped("%s: no user namespace for a child here", label);
		return;
	}
	rc = userns_write_maps(k.pid, mode, &failed);
	t_ok(rc == 0, "%s: maps written (%s)", label, rc ? strerror(-rc) : "ok");
	snprintf(want, sizeof(want), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	slurp(k.pid, "uid_map", got, sizeof(got));
	t_ok(strcmp(got, want) == 0, "%s: uid_map is our own uid only (%.*s)", label,
	     (int)strcspn(got, "\n"), got);
	snprintf(want, sizeof(want), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	slurp(k.pid, "gid_map", got, sizeof(got));
	t_ok(strcmp(got, want) == 0, "%s: gid_map is our own gid only (%.*s)", label,
	     (int)strcspn(got, "\n"), got);
	slurp(k.pid, "setgroups", got, sizeof(got));
	t_ok(strcmp(got, "deny\n") == 0, "%s: setgroups denied (%.*s)", label,
	     (int)strcspn(got, "\n"), got);
	got_ids = kid_finish(&k, ids);
	t_ok(got_ids && ids[0] == geteuid() && ids[1] == getegid(),
	     "%s: inside, the child is uid %u gid %u (ours: %u %u)", label, ids[0], ids[1],
	     (unsigned)geteuid(), (unsigned)getegid());
}

static void check_all(enum userns_map mode, const char *label)
{
	char want[2048], got[2048];
	unsigned ids[2] = {~0u, ~0u};
	const char *failed = NULL;
	bool got_ids;
	struct kid k;
	int rc;

	if (kid_start(&k) < 0) {
		t_skipped("%s: no user namespace for a child here", label);
		return;
	}
	rc = userns_write_maps(k.pid, mode, &failed);
	t_ok(rc == 0, "%s: maps written (%s)", label, rc ? strerror(-rc) : "ok");
	own_identity("uid_map", want, sizeof(want));
	slurp(k.pid, "uid_map", got, sizeof(got));
	t_ok(want[0] && strcmp(got, want) == 0, "%s: uid_map is every uid range of ours (%.*s)",
	     label, (int)strcspn(got, "\n"), got);
	own_identity("gid_map", want, sizeof(want));
	slurp(k.pid, "gid_map", got, sizeof(got));
	t_ok(want[0] && strcmp(got, want) == 0, "%s: gid_map is every gid range of ours (%.*s)",
	     label, (int)strcspn(got, "\n"), got);
	slurp(k.pid, "setgroups", got, sizeof(got));
	t_ok(strcmp(got, "allow\n") == 0, "%s: setgroups left allowed (%.*s)", label,
	     (int)strcspn(got, "\n"), got);
	got_ids = kid_finish(&k, ids);
	t_ok(got_ids && ids[0] == geteuid() && ids[1] == getegid(),
	     "%s: inside, the child is uid %u gid %u", label, ids[0], ids[1]);
}

/* Unprivileged, every id cannot be mapped: the write fails, names the
 * map, and leaves the namespace without one (nothing mapped). */
static void check_all_refused(void)
{
	char got[2048];
	const char *failed = NULL;
	unsigned ids[2];
	struct kid k;
	int rc;

	if (kid_start(&k) < 0) {
		t_skipped("ALL unprivileged: no user namespace for a child here");
		return;
	}
	rc = userns_write_maps(k.pid, USERNS_MAP_ALL, &failed);
	slurp(k.pid, "uid_map", got, sizeof(got));
	t_ok(rc == -EPERM && failed && strcmp(failed, "uid_map") == 0 && got[0] == '\0',
	     "ALL unprivileged: refused with %s at %s, uid_map left empty", strerror(-rc),
	     failed ? failed : "(none)");
	kid_finish(&k, ids);
}

/* A second write names the file that fails: after the maps, setgroups
 * can no longer be written. */
static void check_failed_name(void)
{
	const char *failed = NULL;
	unsigned ids[2];
	struct kid k;
	int rc;

	if (kid_start(&k) < 0) {
		t_skipped("twice: no user namespace for a child here");
		return;
	}
	userns_write_maps(k.pid, USERNS_MAP_OWN, NULL);
	rc = userns_write_maps(k.pid, USERNS_MAP_OWN, &failed);
	t_ok(rc == -EPERM && failed && strcmp(failed, "setgroups") == 0,
	     "maps written twice: -EPERM naming setgroups (%s at %s)", strerror(-rc),
	     failed ? failed : "(none)");
	kid_finish(&k, ids);
}

/* The launcher's way: plan in the child before its unshare, write its own
 * maps through /proc/self after. */
static void check_self(void)
{
	int p[2], status;
	unsigned ids[2] = {~0u, ~0u};
	pid_t pid;

	if (pipe(p) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		struct userns_maps m;

		close(p[0]);
		if (userns_maps_plan(USERNS_MAP_OWN, &m, NULL) < 0 || unshare(CLONE_NEWUSER) < 0)
			_exit(2);
		if (userns_maps_write(0, &m, NULL) < 0)
			_exit(1);
		ids[0] = (unsigned)geteuid();
		ids[1] = (unsigned)getegid();
		_exit(write(p[1], ids, sizeof(ids)) == sizeof(ids) ? 0 : 1);
	}
	close(p[1]);
	(void)!read(p[0], ids, sizeof(ids));
	close(p[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		t_skipped("self: no user namespace here");
		return;
	}
	t_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && ids[0] == geteuid() &&
		     ids[1] == getegid(),
	     "self (pid 0): planned before unshare, written after: uid %u gid %u inside", ids[0],
	     ids[1]);
}

int main(void)
{
	check_own(USERNS_MAP_OWN, "OWN");
	if (geteuid() == 0) {
		check_all(USERNS_MAP_ALL, "ALL as root");
		check_all(USERNS_MAP_AUTO, "AUTO as root");
	} else {
		check_all_refused();
		check_own(USERNS_MAP_AUTO, "AUTO unprivileged");
	}
	check_failed_name();
	check_self();
	return t_done();
}
