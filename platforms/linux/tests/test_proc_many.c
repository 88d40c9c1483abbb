/* test_proc_many.c - several runs of one caller at once (proc.h, "Several
 * runs at once"; the harness's `run --jobs`): with tree_only, ending,
 * timing out or killing one run never kills, counts or reaps another run's
 * program, and a run's own tree (below a program that is a subreaper, as
 * the harness's pair keepers are) is still killed at its timeout.
 *
 * The programs are this binary in a helper mode ("--child MODE ARGS...").
 * Every process started is killed by pid, through its handle, or by the
 * final proc_kill_descendants. */
#include "sandproof/census.h"
#include "sandproof/proc.h"

#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char area[256];
static char self_exe[PATH_MAX];

static void sleep_ms(int ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

/* ---- helper modes (in the spawned program) ------------------------------ */

/* A subreaper whose grandchild daemon (new session, its parent gone)
 * stays in its tree; the daemon's pid in pidfile; then it hangs. */
static void child_reaper_daemon(const char *pidfile)
{
	char tmp[PATH_MAX];
	pid_t p;

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	p = fork();
	if (p == 0) {
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dprintf(fd, "%d\n", (int)getpid());
		close(fd);
		rename(tmp, pidfile);
		for (;;)
			pause();
	}
	for (;;)
		pause();
}

/* A subreaper that forks a sleeping child (a session of its own) every
 * millisecond, each child's pid appended to pidfile, until it is killed. */
static void child_reaper_forker(const char *pidfile)
{
	int fd = open(pidfile, O_WRONLY | O_CREAT | O_APPEND, 0644);

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	for (;;) {
		pid_t p = fork();

		if (p == 0) {
			setsid(); /* out of the group: only the tree sweep reaches it */
			for (;;)
				pause();
		}
		if (p > 0)
			dprintf(fd, "%d\n", (int)p);
		sleep_ms(1);
	}
}

static int child_main(char **argv)
{
	if (!strcmp(argv[2], "sleep"))
		for (;;)
			pause();
	if (!strcmp(argv[2], "exit3"))
		_exit(3);
	if (!strcmp(argv[2], "exit3_later")) {
		sleep_ms(300);
		_exit(3);
	}
	if (!strcmp(argv[2], "reaper_daemon") && argv[3])
		child_reaper_daemon(argv[3]);
	if (!strcmp(argv[2], "reaper_forker") && argv[3])
		child_reaper_forker(argv[3]);
	_exit(100);
}

/* ---- parent side ----------------------------------------------------------- */

struct run {
	struct proc_opts o;
	char *argv[5];
	struct proc_handle *h;
	struct proc_result r;
};

/* Starts the helper mode (arg may be NULL) with tree_only, timeout_ms and
 * kill_leftovers. */
static int start_kl(struct run *x, const char *mode, const char *arg, int timeout_ms,
		    bool tree_only, bool kill_leftovers)
{
	memset(x, 0, sizeof(*x));
	x->argv[0] = self_exe;
	x->argv[1] = (char *)"--child";
	x->argv[2] = (char *)mode;
	x->argv[3] = (char *)arg;
	proc_opts_init(&x->o);
	x->o.argv = x->argv;
	x->o.timeout_ms = timeout_ms;
	x->o.tree_only = tree_only;
	x->o.kill_leftovers = kill_leftovers;
	return proc_start(&x->o, &x->h);
}

static int start(struct run *x, const char *mode, const char *arg, int timeout_ms,
		 bool tree_only)
{
	return start_kl(x, mode, arg, timeout_ms, tree_only, false);
}

static bool alive(pid_t pid)
{
	struct census_proc p;

	return pid > 0 && census_proc_read(pid, &p) == 0 && p.state != 'Z';
}

/* A zombie: ended, not reaped yet (still ours to reap). */
static bool zombie(pid_t pid)
{
	struct census_proc p;

	return pid > 0 && census_proc_read(pid, &p) == 0 && p.state == 'Z';
}

static pid_t wait_pidfile(const char *path)
{
	int pid = -1;

	for (int i = 0; i < 500 && pid <= 0; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = -1;
			fclose(f);
		}
		if (pid <= 0)
			sleep_ms(10);
	}
	return pid;
}

/* The pid of the program a handle runs: the census's child of ours
 * started last (the helper is the only child we start at that moment). */
static pid_t newest_child(void)
{
	struct census_proc *v;
	size_t n;
	pid_t best = 0;
	unsigned long long start = 0;

	if (census_procs(&v, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].ppid == getpid() && v[i].start >= start) {
			start = v[i].start;
			best = v[i].pid;
		}
	free(v);
	return best;
}

/* B ends while A, started after it, runs: B's end neither counts A as its
 * leftover nor (with kill_leftovers) kills it. */
static void test_end_spares_other(bool tree_only)
{
	struct run a, b;
	pid_t pa;

	start_kl(&b, "exit3_later", NULL, 60000, tree_only, true);
	start(&a, "sleep", NULL, 60000, tree_only);
	pa = newest_child();
	proc_wait(b.h, -1);
	proc_end(b.h, &b.r);
	t_ok(b.r.exited && b.r.exit_code == 3 && b.r.leftovers == 0 && alive(pa),
	     "tree_only=%d: a run's end leaves the caller's other run alone (leftovers %d, "
	     "killed %d, the other alive %d)", tree_only, b.r.leftovers, b.r.killed, alive(pa));
	proc_kill(a.h);
	proc_end(a.h, &a.r);
	t_ok(a.r.term_signal == SIGKILL && !alive(pa),
	     "tree_only=%d: the other run is then killed through its own handle", tree_only);
	proc_result_free(&a.r);
	proc_result_free(&b.r);
}

/* A times out while B has ended unreaped (a zombie of ours): A's kill
 * sweep must not reap B, whose status is then read through its handle. */
static void test_timeout_spares_zombie(bool tree_only)
{
	struct run a, b;
	pid_t pb;
	int over;

	start(&a, "sleep", NULL, 300, tree_only);
	start(&b, "exit3", NULL, 60000, tree_only);
	pb = newest_child();
	for (int i = 0; i < 300 && !zombie(pb); i++)
		sleep_ms(10);
	proc_wait(a.h, -1);
	proc_end(a.h, &a.r);
	t_ok(a.r.timed_out && zombie(pb),
	     "tree_only=%d: a run's timeout kill leaves another run's ended program unreaped "
	     "(zombie %d)", tree_only, zombie(pb));
	over = proc_wait(b.h, 2000);
	proc_end(b.h, &b.r);
	t_ok(over == 1 && b.r.exited && b.r.exit_code == 3,
	     "tree_only=%d: that run's status is then its own (over %d, exited %d, code %d)",
	     tree_only, over, b.r.exited, b.r.exit_code);
	proc_result_free(&a.r);
	proc_result_free(&b.r);
}

/* With tree_only, the timeout still kills the program's own tree: the
 * daemon below a subreaper program, while another run goes on. */
static void test_timeout_kills_own_tree(void)
{
	struct run a, b;
	char pidfile[PATH_MAX];
	pid_t pb, d;

	snprintf(pidfile, sizeof(pidfile), "%s/daemon.pid", area);
	start(&b, "sleep", NULL, 60000, true);
	pb = newest_child();
	start(&a, "reaper_daemon", pidfile, 1500, true);
	d = wait_pidfile(pidfile);
	proc_wait(a.h, -1);
	proc_end(a.h, &a.r);
	t_ok(a.r.timed_out && d > 0 && !alive(d) && alive(pb),
	     "tree_only: the timeout kills the run's own daemon (pid %d gone %d), the other "
	     "run lives (%d)", (int)d, !alive(d), alive(pb));
	proc_kill(b.h);
	proc_end(b.h, &b.r);
	proc_result_free(&a.r);
	proc_result_free(&b.r);
}

/* proc_wait(h, 0) advances a run without waiting: a caller polling its
 * runs in turn sees each one end (and its output) by such passes alone. */
static void test_wait_zero(void)
{
	struct run a;
	int over = 0, passes = 0;

	start(&a, "exit3", NULL, 60000, true);
	while (!over && passes < 500) {
		over = proc_wait(a.h, 0);
		passes++;
		if (!over)
			sleep_ms(10);
	}
	if (!over)
		proc_kill(a.h);
	proc_end(a.h, &a.r);
	t_ok(over && a.r.exited && a.r.exit_code == 3,
	     "proc_wait(h, 0): passes alone see the run end (%d passes, exit %d)", passes,
	     a.r.exit_code);
	proc_result_free(&a.r);
}

/* A program that keeps forking (a subreaper: its children stay in its
 * tree) is killed at its timeout with every child it made. */
static void test_timeout_stops_forker(void)
{
	struct run a;
	char pidfile[PATH_MAX];
	int left = 0, made = 0, pid;
	FILE *f;

	snprintf(pidfile, sizeof(pidfile), "%s/forker.pids", area);
	start(&a, "reaper_forker", pidfile, 500, true);
	proc_wait(a.h, -1);
	proc_end(a.h, &a.r);
	sleep_ms(50);
	f = fopen(pidfile, "r");
	while (f && fscanf(f, "%d", &pid) == 1) {
		made++;
		left += alive(pid);
	}
	if (f)
		fclose(f);
	t_ok(a.r.timed_out && made > 10 && left == 0,
	     "tree_only: a program forking until its timeout leaves none of its %d children "
	     "alive (%d left)", made, left);
	proc_result_free(&a.r);
	unlink(pidfile);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return child_main(argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	snprintf(area, sizeof(area), "/tmp/sp-procmany.XXXXXX");
	if (!mkdtemp(area))
		return 1;
	t_ok(proc_init() == 0, "proc_init: the test is a child subreaper");
	test_end_spares_other(true);
	test_timeout_spares_zombie(true);
	test_timeout_kills_own_tree();
	test_timeout_stops_forker();
	test_wait_zero();
	proc_kill_descendants(0);
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/daemon.pid", area);
		unlink(p);
		rmdir(area);
	}
	return t_done();
}
