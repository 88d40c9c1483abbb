/* test_protect.c - protected metadata: plan, monitor, cleanup (protect.h).
 *
 * Everything happens in a mkdtemp directory holding a workspace "ws" (the
 * write root) and a "victim" directory outside it that cleanup must never
 * reach; the directory is removed at the end.  The commands a sandboxed
 * process would run are simulated by this process (or a forked child for
 * the races): the monitor only sees the host's file system, so who makes
 * the change does not matter to it.  Runs as root and unprivileged. */
#include "protect.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int n_check, n_pass, n_fail;
static char base[64], ws[128], victim[128];

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	n_check++;
	if (cond)
		n_pass++;
	else
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void skip(const char *fmt, ...)
{
	va_list ap;

	n_check++;
	printf("ok %d - # SKIP ", n_check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ---- file helpers (test side: plain names are fine here) -------------- */

static const char *P(const char *rel)
{
	static char buf[8][512];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", ws, rel);
	return buf[k];
}

static const char *V(const char *rel)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", victim, rel);
	return buf[k];
}

static bool exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

static int chmod_cb(const char *p, const struct stat *sb, int type,
		    struct FTW *f)
{
	(void)f;
	if (type == FTW_D || type == FTW_DNR)
		chmod(p, (sb->st_mode & 07777) | S_IRWXU);
	return 0;
}

static int rm_cb(const char *p, const struct stat *sb, int type,
		 struct FTW *f)
{
	(void)sb;
	(void)type;
	(void)f;
	remove(p);
	return 0;
}

/* Test teardown: directories left unreadable are opened up first (one
 * more level per round), and nftw never follows a symlink (FTW_PHYS). */
static void rm_rf(const char *p)
{
	for (int round = 0; round < 8 && exists(p); round++) {
		nftw(p, chmod_cb, 16, FTW_PHYS);
		nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	}
}

static void reset_ws(void)
{
	rm_rf(ws);
	if (mkdir(ws, 0755) != 0 || mkdir(P("src"), 0755) != 0) {
		perror("mkdir ws");
		exit(1);
	}
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			perror("write");
		close(fd);
	}
}

static struct strv names_of(const char *const *v)
{
	struct strv s = { (char **)v, 0, 0 };

	while (v[s.n])
		s.n++;
	return s;
}

/* ---- monitor helpers -------------------------------------------------- */

#define EV_MAX 64
static struct protect_event evs[EV_MAX];

static const char *kind_name(enum protect_ev_kind k)
{
	switch (k) {
	case PROTECT_EV_CREATE: return "create";
	case PROTECT_EV_OVERFLOW: return "overflow";
	case PROTECT_EV_LOST: return "lost";
	case PROTECT_EV_REMOVED: return "removed";
	case PROTECT_EV_RESIDUE: return "residue";
	}
	return "?";
}

static void dump(int n)
{
	for (int i = 0; i < n && i < EV_MAX; i++)
		printf("#   %s %s%s%s\n", kind_name(evs[i].kind), evs[i].path,
		       evs[i].err ? " " : "",
		       evs[i].err ? strerror(evs[i].err) : "");
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Service until at least want violations were stored or timeout_ms passed
 * with nothing readable.  want 0: drain until quiet.  Returns the count. */
static int collect(struct protect_mon *m, int want, int timeout_ms)
{
	struct pollfd pfd = { .fd = protect_monitor_fd(m), .events = POLLIN };
	long end = now_ms() + timeout_ms;
	int total = 0, r;

	for (;;) {
		long left = end - now_ms();

		if (want && total >= want)
			break;
		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)left);
		if (r <= 0)
			break;
		r = protect_monitor_service(m, evs + total,
					    (size_t)(EV_MAX - total));
		if (r < 0)
			return r;
		total += r;
		if (total > EV_MAX)
			total = EV_MAX;
		if (!want)
			end = now_ms() + timeout_ms;
	}
	return total;
}

static bool has_ev(int n, enum protect_ev_kind k, const char *path)
{
	for (int i = 0; i < n && i < EV_MAX; i++)
		if (evs[i].kind == k && (!path || !strcmp(evs[i].path, path)))
			return true;
	return false;
}

struct fix {
	struct protect_plan plan;
	struct protect_mon *mon;
	int rc_plan, rc_mon;
};

static void fix_start(struct fix *f, const char *const *names)
{
	struct strv sv = names_of(names);

	f->mon = NULL;
	f->rc_mon = -1;
	f->rc_plan = protect_plan(ws, &sv, &f->plan);
	if (f->rc_plan == 0)
		f->rc_mon = protect_monitor_start(&f->plan, 1, &f->mon);
	if (f->rc_plan || f->rc_mon)
		printf("# setup: plan %d (%s) monitor %d\n", f->rc_plan,
		       f->plan.err, f->rc_mon);
}

static void fix_end(struct fix *f)
{
	protect_monitor_free(f->mon);
	protect_plan_free(&f->plan);
	f->mon = NULL;
}

/* ---- the plan ----------------------------------------------------------- */

static bool same_inode(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static const struct protect_watch *find_watch(const struct protect_plan *p,
					      const char *target)
{
	for (size_t i = 0; i < p->n_watch; i++)
		if (!strcmp(p->watch[i].target, target))
			return &p->watch[i];
	return NULL;
}

static bool watch_is(const struct protect_plan *p, const char *target,
		     const char *dir, const char *name, const char *suffix)
{
	const struct protect_watch *w = find_watch(p, target);

	return w && !strcmp(w->dir, dir) && !strcmp(w->name, name) &&
	       !strcmp(w->suffix, suffix) && same_inode(w->dir_fd, dir);
}

static void test_plan(void)
{
	static const char *const names[] = { ".git/hooks", ".git/config",
		".agents", ".zero", "sub/x", ".a/b/c", NULL };
	struct strv sv = names_of(names);
	struct protect_plan p;
	int r;

	reset_ws();
	mkdir(P(".git"), 0755);
	mkdir(P(".git/hooks"), 0755);
	touch(P(".git/config"));
	touch(P("sub"));
	r = protect_plan(ws, &sv, &p);
	check(r == 0, "plan: repo with .git/hooks present: rc %d %s", r,
	      p.err);
	if (r)
		return;
	check(p.n_ro == 2 && !strcmp(p.ro[0].path, P(".git/hooks")) &&
	      p.ro[0].is_dir && same_inode(p.ro[0].fd, P(".git/hooks")) &&
	      !strcmp(p.ro[1].path, P(".git/config")) && !p.ro[1].is_dir &&
	      same_inode(p.ro[1].fd, P(".git/config")),
	      "plan: read-only .git/hooks (dir) and .git/config (file), "
	      "fds on them (n_ro %zu)", p.n_ro);
	check(p.n_pin == 1 && !strcmp(p.pin[0].path, P(".git")) &&
	      same_inode(p.pin[0].fd, P(".git")),
	      "plan: pins exactly .git, not the root (n_pin %zu)", p.n_pin);
	check(p.n_watch == 4 && watch_is(&p, P(".agents"), ws, ".agents", "")
	      && watch_is(&p, P(".zero"), ws, ".zero", ""),
	      "plan: absent .agents and .zero are watched in the root "
	      "(n_watch %zu)", p.n_watch);
	check(watch_is(&p, P("sub/x"), ws, "sub", "x"),
	      "plan: a file where a directory is needed is watched in its "
	      "parent");
	check(watch_is(&p, P(".a/b/c"), ws, ".a", "b/c"),
	      "plan: missing ancestor: watch (root, .a, b/c)");
	protect_plan_free(&p);

	/* The root itself exists but a protected ancestor is a symlink. */
	rm_rf(P(".git"));
	mkdir(P("realgit"), 0755);
	mkdir(P("realgit/hooks"), 0755);
	symlink("realgit", P(".git"));
	r = protect_plan(ws, &sv, &p);
	check(r == -ELOOP && strstr(p.err, P(".git")) && !p.root &&
	      !p.n_ro && !p.n_watch,
	      "plan: symlinked .git refused with -ELOOP naming it (%d: %s)",
	      r, p.err);
	unlink(P(".git"));

	{
		static const char *const one[] = { ".agents", NULL };
		struct strv s1 = names_of(one);
		char lroot[256];

		snprintf(lroot, sizeof(lroot), "%s/wslink", base);
		symlink("ws", lroot);
		r = protect_plan(lroot, &s1, &p);
		check(r == -ELOOP, "plan: a write root reached through a "
		      "symlink is refused (%d: %s)", r, p.err);
		unlink(lroot);
	}
	{
		static const char *const bad[][2] = { { "../x", NULL },
			{ "/abs", NULL }, { "a//b", NULL }, { "a/./b", NULL },
			{ "", NULL }, { "a/", NULL } };
		int nbad = 0;

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct strv sb = names_of(bad[i]);

			if (protect_plan(ws, &sb, &p) == -EINVAL && p.err[0])
				nbad++;
			else
				protect_plan_free(&p);
		}
		check(nbad == 6, "plan: unclean names refused with -EINVAL "
		      "(%d of 6)", nbad);
	}
	{
		static const char *const nest[] = { ".git", ".git/hooks",
			NULL };
		struct strv sn = names_of(nest);

		mkdir(P(".git"), 0755);
		mkdir(P(".git/hooks"), 0755);
		r = protect_plan(ws, &sn, &p);
		check(r == 0 && p.n_ro == 2 && p.n_pin == 0,
		      "plan: an ancestor that is itself read-only is not "
		      "pinned again (rc %d, n_pin %zu)", r, p.n_pin);
		if (r == 0)
			protect_plan_free(&p);
	}
}

/* ---- the monitor -------------------------------------------------------- */

static const char *const meta[] = { ".git/hooks", ".git/config", ".agents",
	".zero", NULL };

static void test_simple_creates(void)
{
	struct fix f;
	int n, fd;

	reset_ws();
	fix_start(&f, meta);
	check(f.rc_plan == 0 && f.rc_mon == 0, "monitor starts");
	if (f.rc_mon)
		return;

	mkdir(P(".agents"), 0755);
	n = collect(f.mon, 1, 2000);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".agents")),
	      "mkdir .agents reported (%d)", n);
	if (n != 1)
		dump(n);

	fd = open(P(".zero"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	unlink(P(".zero"));
	check(!exists(P(".zero")), "create-then-unlink: .zero already gone");
	n = collect(f.mon, 1, 2000);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".zero")),
	      "create-then-unlink of .zero reported by name (%d)", n);

	/* A reported path is reported once until cleanup forgets it. */
	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	check(n == 1 && has_ev(n, PROTECT_EV_REMOVED, P(".agents")) &&
	      !exists(P(".agents")), "cleanup removes .agents (%d)", n);
	mkdir(P("x"), 0755);
	touch(P("x/inside"));
	rename(P("x"), P(".agents"));
	n = collect(f.mon, 1, 2000);
	check(n >= 1 && has_ev(n, PROTECT_EV_CREATE, P(".agents")),
	      "mv x .agents (IN_MOVED_TO) reported (%d)", n);

	/* Positive control: neighbours are created, nothing is reported,
	 * then a protected name in the same run still is. */
	protect_monitor_cleanup(f.mon, NULL, 0);
	mkdir(P(".agentsX"), 0755);
	touch(P("src/file"));
	touch(P(".zeroY"));
	mkdir(P(".gitx"), 0755);
	mkdir(P("src/.agents"), 0755); /* protected only at the root */
	touch(P(".zero"));
	n = collect(f.mon, 0, 150);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".zero")),
	      "positive control: .agentsX, src/file, .zeroY, .gitx, "
	      "src/.agents not reported, .zero in the same run is (%d)", n);
	if (n != 1)
		dump(n);

	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	check(n == 1 && has_ev(n, PROTECT_EV_REMOVED, P(".zero")) &&
	      !exists(P(".agents")) && !exists(P(".zero")) &&
	      exists(P(".agentsX")) && exists(P("src/file")) &&
	      exists(P("src/.agents")),
	      "cleanup removes .zero, neighbours stay (%d)", n);
	fix_end(&f);
}

/* git init: .git absent, .git then .git/hooks are created. */
static void test_ancestor(void)
{
	struct fix f;
	int n;

	reset_ws();
	fix_start(&f, meta);
	if (f.rc_mon) {
		check(false, "ancestor: monitor start");
		return;
	}
	mkdir(P(".git"), 0755);
	touch(P(".git/HEAD"));
	n = collect(f.mon, 0, 150);
	check(n == 0, "creating only the ancestor .git is not a violation "
	      "(%d)", n);
	mkdir(P(".git/hooks"), 0755);
	n = collect(f.mon, 1, 2000);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".git/hooks")),
	      "then .git/hooks is reported (%d)", n);

	/* Rename the new ancestor away and make it again: the new .git is
	 * watched as well. */
	rename(P(".git"), P("old"));
	mkdir(P(".git"), 0755);
	n = collect(f.mon, 0, 100);
	touch(P(".git/config"));
	n = collect(f.mon, 1, 2000);
	check(n >= 1 && has_ev(n, PROTECT_EV_CREATE, P(".git/config")),
	      "mv .git old && mkdir .git && touch .git/config: reported "
	      "(%d)", n);
	fix_end(&f);

	/* renameat2(RENAME_EXCHANGE) of a prepared tree with a new .git. */
	reset_ws();
	fix_start(&f, meta);
	mkdir(P(".git"), 0755);
	n = collect(f.mon, 0, 100);
	mkdir(P("t"), 0755);
	mkdir(P("t/hooks"), 0755);
	n = renameat2(AT_FDCWD, P("t"), AT_FDCWD, P(".git"), RENAME_EXCHANGE);
	if (n != 0) {
		skip("RENAME_EXCHANGE: %s", strerror(errno));
	} else {
		n = collect(f.mon, 1, 2000);
		check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".git/hooks")),
		      "exchange of t (with hooks) and a new .git reported "
		      "(%d)", n);
	}
	fix_end(&f);

	/* A directory tree moved into place: found by the scan. */
	reset_ws();
	fix_start(&f, meta);
	mkdir(P("t"), 0755);
	mkdir(P("t/hooks"), 0755);
	touch(P("t/hooks/pre-commit"));
	rename(P("t"), P(".git"));
	n = collect(f.mon, 1, 2000);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".git/hooks")),
	      "mv t .git with t/hooks inside: .git/hooks found by scan (%d)",
	      n);
	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	check(n == 1 && has_ev(n, PROTECT_EV_REMOVED, P(".git/hooks")) &&
	      !exists(P(".git/hooks")) && exists(P(".git")),
	      "cleanup removes .git/hooks and leaves the new .git (%d)", n);
	fix_end(&f);

	/* A symlink where the ancestor should be redirects the protected
	 * path: a violation, and cleanup removes the link, not its target. */
	reset_ws();
	fix_start(&f, meta);
	symlink(victim, P(".git"));
	n = collect(f.mon, 1, 2000);
	check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".git")),
	      "symlink .git -> outside reported (%d)", n);
	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	check(n == 1 && has_ev(n, PROTECT_EV_REMOVED, P(".git")) &&
	      !exists(P(".git")) && exists(victim) &&
	      exists(V("hooks/keep")),
	      "cleanup unlinks the .git symlink, victim intact (%d)", n);
	fix_end(&f);
}

/* The race of watch-then-scan: a child makes .git and .git/hooks back to
 * back while the monitor services concurrently. */
static void test_ancestor_race(void)
{
	int iters = 200, miss = 0, errs = 0;

	for (int i = 0; i < iters; i++) {
		struct fix f;
		pid_t pid;
		int n, st;

		reset_ws();
		fix_start(&f, meta);
		if (f.rc_mon) {
			errs++;
			fix_end(&f);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			if (mkdir(P(".git"), 0755) || mkdir(P(".git/hooks"),
							   0755))
				_exit(1);
			_exit(0);
		}
		n = 0;
		for (;;) {
			struct pollfd pfd = { protect_monitor_fd(f.mon),
					      POLLIN, 0 };

			if (poll(&pfd, 1, 0) > 0) {
				int r = protect_monitor_service(f.mon, evs,
								EV_MAX);

				if (r > 0)
					n += r;
			}
			if (n || waitpid(pid, &st, WNOHANG) == pid)
				break;
		}
		if (!n) {
			/* The child is done: every event is queued now. */
			n = collect(f.mon, 1, 1000);
		} else {
			waitpid(pid, &st, 0);
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			errs++;
		else if (n != 1 || !has_ev(n, PROTECT_EV_CREATE,
					   P(".git/hooks")))
			miss++;
		if (protect_monitor_cleanup(f.mon, NULL, 0) != 1)
			errs++;
		fix_end(&f);
	}
	check(miss == 0 && errs == 0, "mkdir .git && mkdir .git/hooks in a "
	      "racing child, %d iterations: %d missed, %d errors", iters,
	      miss, errs);
}

static void make_chain(const char *top, int depth)
{
	char p[8192];
	size_t len = (size_t)snprintf(p, sizeof(p), "%s", top);

	for (int i = 0; i < depth && len + 4 < sizeof(p); i++) {
		len += (size_t)snprintf(p + len, sizeof(p) - len, "/d");
		mkdir(p, 0755);
	}
	snprintf(p + len, sizeof(p) - len, "/leaf");
	touch(p);
}

static void test_cleanup(void)
{
	char link[512];
	struct fix f;
	int n, bad = 0;

	reset_ws();
	fix_start(&f, meta);
	mkdir(P(".agents"), 0755);
	mkdir(P(".agents/a"), 0755);
	mkdir(P(".agents/a/b"), 0755);
	touch(P(".agents/a/b/file"));
	symlink(victim, P(".agents/link"));
	snprintf(link, sizeof(link), "%s/keep", victim);
	symlink(link, P(".agents/a/filelink"));
	make_chain(P(".agents/deep"), 300);
	mkdir(P(".agents/locked"), 0755);
	touch(P(".agents/locked/f"));
	chmod(P(".agents/locked"), 0);
	symlink(victim, P(".zero"));
	n = collect(f.mon, 2, 2000);
	check(n == 2 && has_ev(n, PROTECT_EV_CREATE, P(".agents")) &&
	      has_ev(n, PROTECT_EV_CREATE, P(".zero")),
	      "nested .agents and a .zero symlink reported (%d)", n);
	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	for (int i = 0; i < n && i < EV_MAX; i++)
		if (evs[i].kind != PROTECT_EV_REMOVED)
			bad++;
	check(n == 2 && !bad && has_ev(n, PROTECT_EV_REMOVED, P(".agents")) &&
	      has_ev(n, PROTECT_EV_REMOVED, P(".zero")) &&
	      !exists(P(".agents")) && !exists(P(".zero")),
	      "cleanup removes the tree (300 deep, a locked dir, links) and "
	      "the .zero link (%d, %d not removed)", n, bad);
	if (n != 2 || bad)
		dump(n);
	{
		char buf[8] = "";
		int fd = open(link, O_RDONLY | O_CLOEXEC);
		ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

		if (fd >= 0)
			close(fd);
		check(k == 1 && buf[0] == 'x' && exists(V("hooks/keep")),
		      "the victim outside, reached by links, is intact");
	}
	fix_end(&f);

	/* Events never serviced (lost): cleanup rescans by name. */
	reset_ws();
	fix_start(&f, meta);
	touch(P(".zero"));
	mkdir(P(".git"), 0755);
	mkdir(P(".git/objects"), 0755);
	mkdir(P(".git/hooks"), 0755);
	touch(P(".git/hooks/pre-commit"));
	n = protect_monitor_cleanup(f.mon, evs, EV_MAX);
	check(n == 2 && has_ev(n, PROTECT_EV_REMOVED, P(".zero")) &&
	      has_ev(n, PROTECT_EV_REMOVED, P(".git/hooks")) &&
	      !exists(P(".zero")) && !exists(P(".git/hooks")) &&
	      exists(P(".git/objects")),
	      "cleanup without events finds .zero and .git/hooks, keeps "
	      ".git/objects (%d)", n);
	fix_end(&f);
}

static void test_start_and_lost(void)
{
	static const char *const one[] = { ".agents", NULL };
	static const char *const sub[] = { "sub/.agents", NULL };
	struct strv sv = names_of(one);
	struct protect_plan p;
	struct protect_mon *m = NULL;
	struct fix f;
	int r, n;

	reset_ws();
	r = protect_plan(ws, &sv, &p);
	mkdir(P(".agents"), 0755);
	if (r == 0)
		r = protect_monitor_start(&p, 1, &m);
	check(r == -ESTALE && !m, "a protected name created between plan and "
	      "monitor start: -ESTALE (%d)", r);
	protect_monitor_free(m);
	protect_plan_free(&p);

	/* An ancestor that appeared between plan and start is descended. */
	reset_ws();
	sv = names_of(meta);
	r = protect_plan(ws, &sv, &p);
	mkdir(P(".git"), 0755);
	m = NULL;
	if (r == 0)
		r = protect_monitor_start(&p, 1, &m);
	protect_plan_free(&p);
	if (r == 0) {
		mkdir(P(".git/hooks"), 0755);
		f.mon = m;
		n = collect(m, 1, 2000);
		check(n == 1 && has_ev(n, PROTECT_EV_CREATE, P(".git/hooks")),
		      ".git made between plan and start is watched from the "
		      "start (%d)", n);
	} else {
		check(false, "start with a new ancestor: %d", r);
	}
	protect_monitor_free(m);

	/* A pinned watch parent moved on the host: monitoring incomplete. */
	reset_ws();
	mkdir(P("sub"), 0755);
	fix_start(&f, sub);
	if (f.rc_mon == 0) {
		rename(P("sub"), P("sub2"));
		n = collect(f.mon, 1, 2000);
		check(n >= 1 && has_ev(n, PROTECT_EV_LOST, P("sub")),
		      "watch parent moved away: reported lost (%d)", n);
	} else {
		check(false, "lost: start");
	}
	fix_end(&f);
}

static void test_overflow(void)
{
	char buf[32] = "";
	long max = 0;
	struct fix f;
	FILE *fp;
	int n;

	fp = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (fp) {
		if (fgets(buf, sizeof(buf), fp))
			max = atol(buf);
		fclose(fp);
	}
	if (max <= 0 || max > 200000) {
		skip("overflow: max_queued_events is %ld", max);
		return;
	}
	reset_ws();
	mkdir(P("many"), 0755);
	fix_start(&f, meta);
	/* Unrelated names arriving in the watched root, never serviced:
	 * each rename queues one IN_MOVED_TO. */
	for (long i = 0; i < max + 64; i++)
		rename(P(i % 2 ? "many2" : "many"), P(i % 2 ? "many" : "many2"));
	n = collect(f.mon, 1, 2000);
	check(n >= 1 && has_ev(n, PROTECT_EV_OVERFLOW, NULL),
	      "queue overflow (%ld events) reported as a violation (%d)",
	      max + 64, n);
	fix_end(&f);
}

/* How many inotify marks the group behind fd holds (its fdinfo lists one
 * "inotify wd:" line per mark); -1 when it cannot be read. */
static int marks_of(int fd)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "inotify wd:", 11) == 0)
			n++;
	fclose(f);
	return n;
}

/* protect_monitor_free hands the group's destruction to the kernel (off the
 * runner's critical path), but removes every mark itself first: no watch
 * of the run may outlive the runner.  A dup of the group's descriptor keeps
 * the group alive here so its marks can be counted after the free. */
static void test_free_removes_marks(void)
{
	struct fix f;
	int keep, before, after;

	reset_ws();
	mkdir(P(".git"), 0755); /* a dynamic watch too, once .git is scanned */
	fix_start(&f, meta);
	if (f.rc_plan || f.rc_mon) {
		check(false, "free removes marks: setup failed");
		fix_end(&f);
		return;
	}
	keep = fcntl(protect_monitor_fd(f.mon), F_DUPFD_CLOEXEC, 3);
	before = marks_of(keep);
	fix_end(&f);
	after = marks_of(keep);
	check(before >= 2 && after == 0, "protect_monitor_free removes every mark "
	      "before it lets the group go (%d marks before, %d after)", before, after);
	close(keep);
}

int main(void)
{
	snprintf(base, sizeof(base), "/tmp/test_protect.XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(base, 0755);
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(victim, sizeof(victim), "%s/victim", base);
	mkdir(victim, 0755);
	mkdir(V("hooks"), 0755);
	touch(V("hooks/keep"));
	touch(V("keep"));
	reset_ws();

	test_plan();
	test_simple_creates();
	test_ancestor();
	test_ancestor_race();
	test_cleanup();
	test_start_and_lost();
	test_overflow();
	test_free_removes_marks();

	rm_rf(base);
	check(!exists(base), "temp directory removed");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
