/* test_mounts_inside.c - a mount inside a runtime root or a write root is
 * never deleted through (RT-6) nor walked into (OUT-8): a tmpfs mount and
 * a bind mount of the same file system (same device number: only the mount
 * id tells it apart) inside a root survive `gc --max-age 0 --max-roots 0`
 * with their content, and the change walk lists neither mount's content.
 *
 * The mounts are made in a mount namespace of this test's own (as root, or
 * in a user namespace it creates when not root), made private first, so
 * nothing reaches the host's mount table; the test unmounts them itself
 * and the namespace ends with the process.  Without user namespaces (an
 * unprivileged user on a host that forbids them) every check is skipped
 * with the reason. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "changes.h"
#include "runtime.h"
#include "t.h"

static char base[128];

static const char *P(const char *fmt, ...)
{
	static char buf[8][PATH_MAX];
	static int k;
	char rel[PATH_MAX - 256], *b = buf[k++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool has(const char *path, const char *text)
{
	char got[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	return strcmp(got, text) == 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -1;
	close(fd);
	return rc;
}

/* A private mount namespace: as root directly, else inside a user
 * namespace mapping us to root.  0, or the errno that prevented it. */
static int enter_private_ns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (uid != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return errno;
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
		if (write_file("/proc/self/setgroups", "deny") < 0 ||
		    write_file("/proc/self/uid_map", map) < 0)
			return errno;
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) < 0)
			return errno;
	} else if (unshare(CLONE_NEWNS) < 0) {
		return errno;
	}
	/* nothing mounted below propagates to the host */
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ? errno : 0;
}

/* The outside directory a bind mount shows, and a tmpfs, both in dir. */
static bool mount_both(const char *dir)
{
	char b[PATH_MAX + 16], tm[PATH_MAX + 16];

	snprintf(b, sizeof(b), "%s/bound", dir);
	snprintf(tm, sizeof(tm), "%s/tmpfs", dir);
	return mkdir(b, 0700) == 0 && mkdir(tm, 0700) == 0 &&
	       mount(P("src"), b, NULL, MS_BIND, NULL) == 0 &&
	       mount("sandproof-test", tm, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") == 0;
}

static void unmount_both(const char *dir)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/bound", dir);
	umount2(p, MNT_DETACH);
	snprintf(p, sizeof(p), "%s/tmpfs", dir);
	umount2(p, MNT_DETACH);
}

/* The tombstone gc left in the runtime parent (the root renamed), or "". */
static const char *find_tomb(void)
{
	static char tomb[PATH_MAX];
	char cmd[PATH_MAX + 64];
	FILE *f;

	tomb[0] = '\0';
	snprintf(cmd, sizeof(cmd), "ls -d '%s'/*.tomb.* 2>/dev/null", P("rt"));
	if ((f = popen(cmd, "r"))) {
		if (fgets(tomb, sizeof(tomb), f))
			tomb[strcspn(tomb, "\n")] = '\0';
		pclose(f);
	}
	return tomb;
}

static void test_gc(void)
{
	static char parent[PATH_MAX];
	struct runtime_config c = {.parent = parent, .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_report rep;
	struct runtime_root r;
	char cache[PATH_MAX], tomb[PATH_MAX + 64];
	bool ok;
	int rc;

	snprintf(parent, sizeof(parent), "%s", P("rt"));

	mkdir(P("ws"), 0700);
	rc = runtime_acquire(&c, P("ws"), &r, &rep);
	if (!t_ok(rc == 0, "a runtime root provisioned (%s)", rc ? strerror(-rc) : r.root))
		return;
	snprintf(cache, sizeof(cache), "%s", r.cache);
	runtime_release(&r);
	put(P("%s", "src/keep"), "outside\n");
	ok = mount_both(cache);
	if (!t_ok(ok, "a bind mount of an outside directory (same file system) and a tmpfs "
		  "mounted in the root's cache/%s%s", ok ? "" : ": ", ok ? "" : strerror(errno)))
		return;
	snprintf(tomb, sizeof(tomb), "%s/tmpfs/f", cache);
	put(tomb, "in the tmpfs\n");
	snprintf(tomb, sizeof(tomb), "%s/plain", cache);
	put(tomb, "the root's own\n");

	c.max_age_s = 0;
	c.max_roots = 0;
	rc = runtime_gc(&c, NULL, false, &rep);
	t_ok(rc == 0 && rep.evicted_total == 1, "gc --max-age 0 --max-roots 0 evicts the root "
	     "(rc %d, %zu evicted)", rc, rep.evicted_total);
	t_ok(has(P("src/keep"), "outside\n") && has(P("src/sub/keep"), "outside too\n"),
	     "the bind-mounted outside directory keeps its content");
	snprintf(tomb, sizeof(tomb), "%s", find_tomb());
	t_ok(rep.skipped_total == 1 && strstr(rep.skipped[0].reason, "delete"),
	     "the tombstone's delete is reported as skipped (%s: %s)",
	     rep.n_skipped ? rep.skipped[0].name : "-", rep.n_skipped ? rep.skipped[0].reason : "-");
	if (!t_ok(tomb[0] != '\0', "the tombstone holding the mount points stays"))
		return;
	t_ok(has(P("%s/cache/tmpfs/f", tomb + strlen(base) + 1), "in the tmpfs\n"),
	     "the tmpfs keeps its content");
	t_ok(access(P("%s/cache/plain", tomb + strlen(base) + 1), F_OK) < 0 &&
	     access(P("%s/tmp", tomb + strlen(base) + 1), F_OK) < 0,
	     "the rest of the root is deleted (the control)");
	snprintf(tomb + strlen(tomb), sizeof(tomb) - strlen(tomb), "/cache");
	unmount_both(tomb);
}

static void test_changes_walk(void)
{
	static char root[PATH_MAX];
	struct write_root wr = {.root = root};
	struct request req;
	struct changes c;
	bool inside = false, ok;

	snprintf(root, sizeof(root), "%s", P("w"));
	memset(&req, 0, sizeof(req));
	req.fs_kind = FS_RESTRICTED;
	req.write_roots = &wr;
	req.n_write_roots = 1;
	mkdir(P("w"), 0700);
	ok = mount_both(P("w"));
	if (!t_ok(ok, "a bind mount and a tmpfs in a write root%s%s", ok ? "" : ": ",
		  ok ? "" : strerror(errno)))
		return;
	put(P("w/tmpfs/old"), "x");
	t_ok(changes_baseline(&c, &req) == 0, "baseline");
	put(P("src/new"), "created outside, seen through the bind mount");
	put(P("src/keep"), "modified outside, seen through the bind mount");
	put(P("w/tmpfs/new"), "created in the tmpfs");
	put(P("w/mine"), "created in the root");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	for (size_t i = 0; i < c.n_items; i++)
		inside |= strncmp(c.items[i].path, P("w/bound/"), strlen(P("w/bound/"))) == 0 ||
			  strncmp(c.items[i].path, P("w/tmpfs/"), strlen(P("w/tmpfs/"))) == 0;
	t_ok(!inside, "nothing inside either mount is listed");
	t_ok(c.n_items == 1 && c.created == 1 && !strcmp(c.items[0].path, P("w/mine")),
	     "only the root's own creation (%zu items, first %s)", c.n_items,
	     c.n_items ? c.items[0].path : "-");
	changes_free(&c);
	unmount_both(P("w"));
}

int main(void)
{
	char cmd[256];
	int e = enter_private_ns();

	if (e) {
		t_skipped("no private mount namespace (%s): mounts cannot be made here", strerror(e));
		return t_done();
	}
	snprintf(base, sizeof(base), "/tmp/sandproof-mounts-XXXXXX");
	if (!mkdtemp(base))
		return 1;
	mkdir(P("src"), 0700);
	mkdir(P("src/sub"), 0700);
	put(P("src/sub/keep"), "outside too\n");
	test_gc();
	test_changes_walk();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", base);
	return t_done();
}
