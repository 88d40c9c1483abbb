/* test_namecase.c - how a volume matches names (namecase.h), and the
 * protected-metadata plan and monitor on a volume that folds case
 * (META-6, protect.h).
 *
 * The comparison, the spellings and the refusals are pure.  The probe is
 * checked where this test runs (a temp directory on the build machine's
 * file system: decided without folding, nothing left behind) and, as
 * root, on an exFAT volume through FUSE (cfvol.h, the harness's primitive):
 * folds ASCII case, each spelling its own object, the probe file gone;
 * the plan's watch folds; the monitor reports .AGENTS as .agents, .Git then
 * .GIT/hooks as .git/hooks, and does not remove what the command may hold
 * open until it is gone (protect_monitor_cleanup_running).  Unprivileged,
 * or without FUSE or the exFAT tools, the volume's checks are skipped,
 * saying why. */
#include "namecase.h"
#include "protect.h"
#include "sandproof/cfvol.h"
#include "sandproof/proc.h"
#include "t.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

static int count_cb(void *ctx, const char *s)
{
	int *n = ctx;

	(void)s;
	(*n)++;
	return 0;
}

static int find_cb(void *ctx, const char *s)
{
	return strcmp(s, ctx) == 0 ? 7 : 0;
}

static void test_equal(void)
{
	t_ok(!namecase_equal(0, ".git", ".GIT") && namecase_equal(0, ".git", ".git"),
	     "byte for byte: .GIT is not .git");
	t_ok(namecase_equal(NC_ASCII, ".GiT", ".git") && !namecase_equal(NC_ASCII, ".gitx", ".git") &&
	     !namecase_equal(NC_ASCII, ".gi", ".git"), "ASCII case: .GiT is .git, .gitx and .gi are not");
	t_ok(!namecase_equal(NC_ASCII, ".git.", ".git") && namecase_equal(NC_ASCII | NC_TRAILING,
	     ".GIT. .", ".git"), "trailing dots and spaces only under NC_TRAILING");
	t_ok(namecase_equal(NC_ASCII | NC_KELVIN, "hoo\xE2\x84\xAAs", "hooks") &&
	     !namecase_equal(NC_ASCII, "hoo\xE2\x84\xAAs", "hooks"), "Kelvin sign as k only under NC_KELVIN");
	t_ok(namecase_equal(NC_ASCII | NC_LONG_S, "hook\xC5\xBF", "HOOKS") &&
	     namecase_equal(NC_ASCII | NC_DOTTED_I, ".g\xC4\xB1t", ".GIT") &&
	     !namecase_equal(NC_ASCII, ".g\xC4\xB1t", ".git"), "long s, dotless i by their families");
	t_ok(!namecase_equal(NC_ASCII, ".gi\xE2\x84", ".git"), "a cut UTF-8 sequence is its bytes");
}

static void test_spellings(void)
{
	int n = 0, rc;

	rc = namecase_spellings(".git", 8, count_cb, &n);
	t_ok(rc == 0 && n == 8, ".git has 8 spellings (%d, rc %d)", n, rc);
	t_ok(namecase_spellings(".git", 8, find_cb, ".GiT") == 7, "one of them is .GiT, and fn's "
	     "non-zero return is returned");
	t_ok(namecase_spellings(".git", 7, count_cb, &n) == -E2BIG, "more than max: -E2BIG");
	n = 0;
	t_ok(namecase_spellings("1.2", 8, count_cb, &n) == 0 && n == 1, "no letter: the name alone");
}

static void test_check(void)
{
	struct namecase exact = {0}, fold = {NC_ASCII, false}, sep = {NC_ASCII, true},
			sep_s = {NC_ASCII | NC_LONG_S, true}, other = {NC_ASCII | NC_OTHER, false};
	char err[256];

	t_ok(namecase_check(&exact, "/w", "\xC3\xA9t\xC3\xA9", err, sizeof(err)) == 0,
	     "byte for byte: any name can be matched");
	t_ok(namecase_check(&fold, "/w", "\xC3\xA9t\xC3\xA9", err, sizeof(err)) == -EOPNOTSUPP &&
	     strstr(err, "not ASCII"), "folding: a name not ASCII is refused (%s)", err);
	t_ok(namecase_check(&sep, "/w", ".git", err, sizeof(err)) == 0 &&
	     namecase_check(&sep_s, "/w", ".git", err, sizeof(err)) == -EOPNOTSUPP,
	     "separate spellings: ASCII case listed, long s refused");
	t_ok(namecase_check(&other, "/w", ".git", err, sizeof(err)) == -EOPNOTSUPP,
	     "a family not modelled is refused");
}

static int listing(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	out[0] = '\0';
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s/", de->d_name);
	closedir(d);
	return 0;
}

/* The probe where the build runs: a temp directory of this machine. */
static void test_probe_here(void)
{
	struct namecase_cache c = {.n = 0};
	char dir[] = "/tmp/sandproof-namecase.XXXXXX", before[1024], after[1024], err[512];
	struct namecase nc;
	int fd, rc;

	if (!mkdtemp(dir)) {
		t_ok(0, "mkdtemp");
		return;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	listing(dir, before, sizeof(before));
	rc = namecase_probe(&c, fd, dir, &nc, err, sizeof(err));
	listing(dir, after, sizeof(after));
	t_ok(rc == 0 && nc.fold == 0 && !c.folded, "%s: decided, byte for byte (rc %d, fold %#x: %s)",
	     dir, rc, nc.fold, rc ? err : "");
	t_ok(strcmp(before, after) == 0, "nothing left in it (%s)", after);
	rc = namecase_probe(&c, fd, dir, &nc, err, sizeof(err));
	t_ok(rc == 0 && c.n == 1, "a second ask is the cached decision (%zu entries)", c.n);
	close(fd);
	rmdir(dir);
}

static bool mk(const char *p)
{
	return mkdir(p, 0755) == 0;
}

/* Service the monitor until it reports, at most ms; the events in ev. */
static int drain_ms(struct protect_mon *m, struct protect_event *ev, size_t max, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		int n = protect_monitor_service(m, ev, max);

		if (n != 0)
			return n;
		struct timespec ts = {0, 10000000};

		nanosleep(&ts, NULL);
	}
	return 0;
}

static int drain(struct protect_mon *m, struct protect_event *ev, size_t max)
{
	return drain_ms(m, ev, max, 5000);
}

static bool has(const struct protect_event *ev, int n, enum protect_ev_kind k, const char *path)
{
	for (int i = 0; i < n && i < 16; i++)
		if (ev[i].kind == k && strcmp(ev[i].path, path) == 0)
			return true;
	return false;
}

/* The plan and the monitor on ws, a workspace on a case-insensitive
 * volume: .AGENTS is .agents; .Git then .GIT/hooks is .git/hooks. */
static void test_monitor_folds(const char *ws)
{
	struct protect_plan p;
	struct protect_mon *m = NULL;
	struct protect_event ev[16];
	struct strv names = {0};
	char a[512], b[512], c2[512], err[256];
	int rc, n;

	strv_push(&names, ".agents");
	strv_push(&names, ".git/hooks");
	rc = protect_plan(ws, &names, &p);
	t_ok(rc == 0 && p.n_watch == 2 && p.watch[0].nc.fold & NC_ASCII && p.watch[0].nc.separate,
	     "plan: the watches fold ASCII case, spellings separate (rc %d: %s)", rc, p.err);
	if (rc == 0)
		rc = protect_monitor_start(&p, 1, &m);
	protect_plan_free(&p);
	t_ok(rc == 0, "monitor started (%d)", rc);
	if (rc < 0) {
		strv_free(&names);
		return;
	}
	snprintf(a, sizeof(a), "%s/.AGENTS", ws);
	mk(a);
	n = drain(m, ev, 16);
	snprintf(a, sizeof(a), "%s/.agents", ws);
	t_ok(n > 0 && has(ev, n, PROTECT_EV_CREATE, a), ".AGENTS reported as %s", a);
	snprintf(b, sizeof(b), "%s/.Git", ws);
	mk(b);
	n = drain_ms(m, ev, 16, 500);
	t_ok(n == 0, "the ancestor .Git alone is no violation (%d)", n);
	snprintf(c2, sizeof(c2), "%s/.GIT/hooks", ws);
	mk(c2);
	n = drain(m, ev, 16);
	snprintf(c2, sizeof(c2), "%s/.git/hooks", ws);
	t_ok(n > 0 && has(ev, n, PROTECT_EV_CREATE, c2),
	     ".GIT/hooks under the new .Git reported as %s (%d events)", c2, n);
	/* Removal: while the command may hold them open, not on such a
	 * volume; once it is gone, under every spelling. */
	n = protect_monitor_cleanup_running(m, ev, 16);
	t_ok(n == 0 && access(a, F_OK) == 0, "cleanup while running removes nothing here (%d)", n);
	n = protect_monitor_cleanup(m, ev, 16);
	t_ok(has(ev, n, PROTECT_EV_REMOVED, a) && has(ev, n, PROTECT_EV_REMOVED, c2) &&
	     access(a, F_OK) != 0 && access(c2, F_OK) != 0, "cleanup removes both (%d events)", n);
	snprintf(err, sizeof(err), "%s/.git", ws);
	t_ok(access(err, F_OK) == 0, "the ancestor made during the run stays");
	protect_monitor_free(m);
	strv_free(&names);
}

static void test_exfat(void)
{
	char dir[] = "/tmp/sandproof-namecase.XXXXXX", mnt[128], img[128], ws[160], err[512];
	char before[1024], after[1024];
	struct namecase_cache c = {.n = 0};
	struct cfvol_opts o = {.bytes = 0};
	struct cfvol *v = NULL;
	struct namecase nc;
	int fd, rc;

	if (!mkdtemp(dir)) {
		t_ok(0, "mkdtemp");
		return;
	}
	snprintf(mnt, sizeof(mnt), "%s/m", dir);
	snprintf(img, sizeof(img), "%s/v.img", dir);
	mkdir(mnt, 0755);
	o.dir = mnt;
	o.image = img;
	proc_init();
	rc = cfvol_make(&o, &v, err, sizeof(err));
	if (rc < 0) {
		if (rc == -EPERM || rc == -ENOENT || rc == -EACCES)
			t_skipped("no exFAT volume here: %s", err);
		else
			t_ok(0, "cfvol_make: %s", err);
		rmdir(mnt);
		unlink(img);
		rmdir(dir);
		return;
	}
	snprintf(ws, sizeof(ws), "%s/ws", mnt);
	mk(ws);
	fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	listing(ws, before, sizeof(before));
	rc = namecase_probe(&c, fd, ws, &nc, err, sizeof(err));
	listing(ws, after, sizeof(after));
	t_ok(rc == 0 && nc.fold == NC_ASCII && nc.separate && c.folded,
	     "exFAT through FUSE: ASCII case folded, nothing else, spellings separate (fold %#x)", nc.fold);
	t_ok(strcmp(before, after) == 0, "the probe left nothing (%s)", after);
	snprintf(before, sizeof(before), "%s/.git", ws);
	mk(before);
	rc = namecase_probe_name(&c, fd, ws, ".git", &nc, err, sizeof(err));
	t_ok(rc == 0 && nc.fold == NC_ASCII && nc.separate, ".git's own variants: ASCII case only");
	rmdir(before);
	close(fd);
	test_monitor_folds(ws);
	rc = cfvol_end(v, err, sizeof(err));
	t_ok(rc == 0, "the volume ended, its loop device let go (%s)", rc ? err : "");
	unlink(img);
	rmdir(mnt);
	rmdir(dir);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_equal();
	test_spellings();
	test_check();
	test_probe_here();
	test_exfat();
	return t_done();
}
