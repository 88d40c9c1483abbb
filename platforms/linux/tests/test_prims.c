/* test_prims.c - the harness's race and fault primitives: proc (capture,
 * timeout, tree kill, fault, hold, namespaces), swap and census.
 *
 * The programs spawned are this test binary itself (/proc/self/exe) in a
 * helper mode, "--child MODE ARGS...", plus /bin/true.  Helpers leave with
 * _exit() so no sanitizer exit hook runs under a filter.  Every check runs
 * in a scratch area (mkdtemp under /tmp, mode 0755) removed at the end;
 * every process started is killed by pid or through the subreaper sweep. */
#include "sandproof/census.h"
#include "sandproof/proc.h"
#include "sandproof/swap.h"

#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char area[256];
static char self_exe[PATH_MAX];

/* ---- helper modes (run in the spawned program) -------------------------- */

static const char *ename(int e)
{
	switch (e) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case ENXIO: return "ENXIO";
	case EEXIST: return "EEXIST";
	default: return "other";
	}
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(9);
}

/* s with newlines shown as '|', for one-line check labels. */
static const char *flat(const char *s)
{
	static char buf[4][512];
	static int k;
	size_t i;

	k = (k + 1) % 4;
	for (i = 0; s && s[i] && i < sizeof(buf[k]) - 1; i++)
		buf[k][i] = s[i] == '\n' ? '|' : s[i];
	buf[k][i] = '\0';
	return buf[k];
}

static void sleep_ms(int ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

/* A daemon: double fork, setsid, stdio to /dev/null, its pid in pidfile. */
static void child_daemon(const char *pidfile, bool hang)
{
	pid_t p = fork();

	if (p == 0) {
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		int fd = open("/dev/null", O_RDWR);
		char tmp[PATH_MAX];

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dprintf(fd, "%d\n", (int)getpid());
		close(fd);
		rename(tmp, pidfile);
		for (;;)
			pause();
	}
	waitpid(p, NULL, 0);
	for (int i = 0; i < 500 && access(pidfile, F_OK) < 0; i++)
		sleep_ms(10);
	say("daemon started\n");
	while (hang)
		pause();
	_exit(0);
}

static void child_mkdir3(const char *dir)
{
	const char *names[] = {"a", "b", "c"};

	for (int i = 0; i < 3; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		say("%s%s", i ? " " : "", ename(mkdir(p, 0755) < 0 ? errno : 0));
	}
	say("\n");
	_exit(0);
}

/* Installs its own filter (mkdir -> EPERM), tries a second listener (the
 * kernel allows one per chain: EBUSY under a hold), and ends with one
 * openat of path as its last openat. */
static void child_selffilter(const char *path)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	char dir[PATH_MAX];
	long l;
	int fd, e_mk, e_l, e_open;

	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mkdir), 0) < 0 ||
	    seccomp_load(ctx) < 0) {
		say("own filter failed\n");
		_exit(1);
	}
	l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	e_l = l < 0 ? errno : 0;
	snprintf(dir, sizeof(dir), "%s.d", path);
	e_mk = mkdir(dir, 0755) < 0 ? errno : 0;
	fd = open(path, O_RDONLY);
	e_open = fd < 0 ? errno : 0;
	say("open=%s mkdir=%s notify=%s\n", ename(e_open), ename(e_mk), ename(e_l));
	_exit(0);
}

static void child_mount(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	int e, fd;

	stat("/proc/self/ns/mnt", &st);
	say("mntns=%lu uid=%u\n", (unsigned long)st.st_ino, (unsigned)getuid());
	snprintf(p, sizeof(p), "%s/mnt", dir);
	e = mount("sp-test", p, "tmpfs", 0, NULL) < 0 ? errno : 0;
	say("mount=%s\n", ename(e));
	snprintf(p, sizeof(p), "%s/landed", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		say("write=%s\n", write(fd, "hello", 5) == 5 ? "ok" : "short");
		close(fd);
	}
	_exit(0);
}

static int child_main(int argc, char **argv)
{
	const char *mode = argv[2];

	if (!strcmp(mode, "echo")) {
		char buf[4096];
		ssize_t n;

		while ((n = read(0, buf, sizeof(buf))) > 0)
			if (write(1, buf, (size_t)n) < 0)
				break;
		if (write(2, "to-stderr\n", 10) < 0)
			_exit(9);
		_exit(3);
	}
	if (!strcmp(mode, "session")) {
		int fd = open("/dev/tty", O_RDWR);

		say("sid_is_pid=%d tty=%s env=%s\n", getsid(0) == getpid(),
		    ename(fd < 0 ? errno : 0), getenv("SPX") ? getenv("SPX") : "-");
		_exit(0);
	}
	if (!strcmp(mode, "big")) {
		static char buf[65536];

		memset(buf, 'x', sizeof(buf));
		for (int i = 0; i < 160; i++) /* 10 MiB */
			if (write(1, buf, sizeof(buf)) < 0)
				_exit(1);
		_exit(0);
	}
	if (!strcmp(mode, "sleep")) {
		for (;;)
			pause();
	}
	if (!strcmp(mode, "daemon") && argc > 4)
		child_daemon(argv[3], !strcmp(argv[4], "hang"));
	if (!strcmp(mode, "mkdir3") && argc > 3)
		child_mkdir3(argv[3]);
	if (!strcmp(mode, "openlast") && argc > 3) {
		int fd = open(argv[3], O_RDONLY);

		say("%s\n", ename(fd < 0 ? errno : 0));
		_exit(0);
	}
	if (!strcmp(mode, "selffilter") && argc > 3)
		child_selffilter(argv[3]);
	if (!strcmp(mode, "mount") && argc > 3)
		child_mount(argv[3]);
	if (!strcmp(mode, "ns")) {
		struct stat n, u;

		stat("/proc/self/ns/net", &n);
		stat("/proc/self/ns/user", &u);
		say("net=%lu user=%lu\n", (unsigned long)n.st_ino, (unsigned long)u.st_ino);
		_exit(0);
	}
	_exit(100);
}

/* ---- parent-side helpers ------------------------------------------------- */

static char *apath(const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", area, name);
	return buf[i];
}

static int run_helper(struct proc_opts *o, struct proc_result *r,
		      const char *mode, const char *a1, const char *a2)
{
	char *argv[] = {self_exe, (char *)"--child", (char *)mode, (char *)a1,
			(char *)a2, NULL};

	o->argv = argv;
	return proc_run(o, r);
}

static pid_t read_pidfile(const char *path)
{
	FILE *f = fopen(path, "r");
	int pid = -1;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

static bool alive(pid_t pid)
{
	struct census_proc p;

	return pid > 0 && census_proc_read(pid, &p) == 0 && p.state != 'Z';
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(p) < 0 ? 0 : 0;
	unlink(p);
	return 0;
}

static void rm_tree(const char *p)
{
	nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static size_t count_kind(const struct census *c, enum census_kind k,
			 const char *needle)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].kind == k && (!needle || strstr(c->items[i].text, needle)))
			n++;
	return n;
}

/* ---- proc: capture, session, timeout, tree ---------------------------- */

static void test_capture(void)
{
	struct proc_opts o;
	struct proc_result r;
	char *env[] = {(char *)"SPX=seen", NULL};
	char *missing[] = {(char *)"/nonexistent/sp-prog", NULL};
	int rc;

	proc_opts_init(&o);
	o.stdin_data = "hello stdin\n";
	o.stdin_len = 12;
	rc = run_helper(&o, &r, "echo", NULL, NULL);
	t_ok(rc == 0 && r.exited && r.exit_code == 3 && !r.timed_out,
	     "proc: exit status captured (rc %d, code %d)", rc, r.exit_code);
	t_ok(r.out_len == 12 && !strcmp(r.out, "hello stdin\n"),
	     "proc: stdin bytes delivered through a pipe, stdout captured");
	t_ok(!strcmp(r.err, "to-stderr\n"), "proc: stderr captured apart");
	proc_result_free(&r);

	proc_opts_init(&o);
	o.envp = env;
	rc = run_helper(&o, &r, "session", NULL, NULL);
	t_ok(rc == 0 && strstr(r.out, "sid_is_pid=1 tty=ENXIO"),
	     "proc: new session, no controlling terminal (%s)", flat(r.out));
	t_ok(strstr(r.out, "env=seen") != NULL, "proc: envp passed");
	proc_result_free(&r);

	proc_opts_init(&o);
	o.out_limit = 1u << 20;
	rc = run_helper(&o, &r, "big", NULL, NULL);
	t_ok(rc == 0 && r.exited && r.exit_code == 0 && r.out_len == (1u << 20) &&
	     r.out_truncated && !r.timed_out,
	     "proc: 10 MiB of output bounded to 1 MiB, program not blocked");
	proc_result_free(&r);

	proc_opts_init(&o);
	o.argv = missing;
	rc = proc_run(&o, &r);
	t_ok(rc == 0 && r.setup_err == ENOENT && !strcmp(r.setup_step, "exec") &&
	     r.exit_code == 127, "proc: exec failure reported as setup (%s: %d)",
	     r.setup_step, r.setup_err);
	proc_result_free(&r);
}

static void test_timeout_tree(void)
{
	struct proc_opts o;
	struct proc_result r;
	struct census_opts co = {0};
	struct census before, after, diff;
	const char *pidfile = apath("daemon1.pid");
	pid_t d;
	int rc, k;

	proc_opts_init(&o);
	o.timeout_ms = 300;
	rc = run_helper(&o, &r, "sleep", NULL, NULL);
	t_ok(rc == 0 && r.timed_out && r.term_signal == SIGKILL && r.duration_ms < 3000,
	     "proc: timeout kills the program (%llu ms)",
	     (unsigned long long)r.duration_ms);
	proc_result_free(&r);

	/* A daemon escaping session and group, then the program hangs. */
	proc_opts_init(&o);
	o.timeout_ms = 1500;
	rc = run_helper(&o, &r, "daemon", pidfile, "hang");
	d = read_pidfile(pidfile);
	t_ok(rc == 0 && r.timed_out && d > 0 && !alive(d) && r.killed >= 2 &&
	     r.leftovers == 0,
	     "proc: timeout kills a daemonized grandchild (pid %d, killed %d)",
	     (int)d, r.killed);
	proc_result_free(&r);

	/* The program exits and leaves its daemon: kept for the census. */
	co.marker = area;
	census_take(&co, &before);
	proc_opts_init(&o);
	pidfile = apath("daemon2.pid");
	rc = run_helper(&o, &r, "daemon", pidfile, "exit");
	d = read_pidfile(pidfile);
	t_ok(rc == 0 && r.exited && r.exit_code == 0 && !r.timed_out && alive(d) &&
	     r.leftovers == 1,
	     "proc: a leftover daemon survives a normal exit (leftovers %d)",
	     r.leftovers);
	proc_result_free(&r);
	census_take(&co, &after);
	census_diff(&before, &after, &diff);
	{
		char pid[32];

		snprintf(pid, sizeof(pid), "pid %d ", (int)d);
		t_ok(count_kind(&diff, CENSUS_PROC, pid) == 1 &&
		     count_kind(&diff, CENSUS_MARKED, pid) == 1 && diff.n == 2,
		     "census: diff shows the leftover process (as descendant and "
		     "by marker), nothing else (%zu items)", diff.n);
	}
	census_free(&after);
	census_free(&diff);
	k = proc_kill_descendants(0);
	t_ok(k == 1 && !alive(d), "proc_kill_descendants: the leftover is killed (%d)", k);
	census_take(&co, &after);
	census_diff(&before, &after, &diff);
	t_ok(diff.n == 0, "census: nothing new once clean (%zu items)", diff.n);
	census_free(&before);
	census_free(&after);
	census_free(&diff);

	/* kill_leftovers: the run's own tree goes at exit too. */
	proc_opts_init(&o);
	o.kill_leftovers = true;
	pidfile = apath("daemon3.pid");
	rc = run_helper(&o, &r, "daemon", pidfile, "exit");
	d = read_pidfile(pidfile);
	t_ok(rc == 0 && r.exit_code == 0 && d > 0 && !alive(d) && r.killed == 1 &&
	     r.leftovers == 1,
	     "proc: kill_leftovers ends the daemon at exit, still reported "
	     "(killed %d, leftovers %d)", r.killed, r.leftovers);
	proc_result_free(&r);
}

/* A process the run did not start survives the run's timeout sweep. */
static void test_sweep_spares(void)
{
	struct proc_opts o;
	struct proc_result r;
	pid_t bystander = fork();

	if (bystander == 0) {
		for (;;)
			pause();
	}
	proc_opts_init(&o);
	o.timeout_ms = 300;
	run_helper(&o, &r, "sleep", NULL, NULL);
	t_ok(r.timed_out && alive(bystander),
	     "proc: a timeout spares processes started before the run");
	proc_result_free(&r);
	kill(bystander, SIGKILL); /* ours, unreaped: the pid is still its */
	waitpid(bystander, NULL, 0);
}

/* ---- fault ---------------------------------------------------------------- */

/* fault_more_syscalls (sp_fault's comma list): each fails like the named
 * one; they exist only for the plain rule and may not be held. */
static void test_fault_more(void)
{
	static const char *const more[] = {"mkdir", NULL};
	static const char *const held[] = {"mkdir", NULL};
	struct proc_opts o;
	struct proc_result r;
	char dir[PATH_MAX];
	int rc;

	snprintf(dir, sizeof(dir), "%s/faultmore", area);
	mkdir(dir, 0755);
	proc_opts_init(&o);
	o.fault_syscall = "rmdir";
	o.fault_errno = EACCES;
	o.fault_more_syscalls = more;
	rc = run_helper(&o, &r, "mkdir3", dir, NULL);
	t_ok(rc == 0 && !strcmp(r.out, "EACCES EACCES EACCES\n"),
	     "fault rmdir + more mkdir: every mkdir fails like the named syscall (%s)",
	     rc ? strerror(-rc) : flat(r.out));
	proc_result_free(&r);
	o.fault_nth = 2;
	rc = run_helper(&o, &r, "mkdir3", dir, NULL);
	t_ok(rc == -EINVAL, "fault: more syscalls with a counted fault are -EINVAL");
	proc_result_free(&r);
	o.fault_nth = 0;
	o.hold_syscalls = held;
	rc = run_helper(&o, &r, "mkdir3", dir, NULL);
	t_ok(rc == -EINVAL, "fault: a syscall both in the more list and held is -EINVAL");
	proc_result_free(&r);
}

static void test_fault(void)
{
	struct proc_opts o;
	struct proc_result r;
	char dir[PATH_MAX];
	int rc;

	/* rounds 3..5: single shot (once), only call nth fails: the calls
	 * after it succeed again, and nth 0 means the first */
	static const unsigned nth[] = {0, 2, 1, 2, 1, 0};
	static const bool once[] = {false, false, false, true, true, true};

	for (int round = 0; round < 6; round++) {
		static const char *want[] = {"ok ok ok\n", "ok EACCES EACCES\n",
					     "EACCES EACCES EACCES\n", "ok EACCES ok\n",
					     "EACCES ok ok\n", "EACCES ok ok\n"};
		static const char *what[] = {"no fault: mkdir x3 all succeed",
					     "fault mkdir EACCES nth=2: ok, EACCES, EACCES",
					     "fault mkdir EACCES nth=1: every call fails",
					     "fault mkdir EACCES nth=2 once: ok, EACCES, ok",
					     "fault mkdir EACCES nth=1 once: EACCES, ok, ok",
					     "fault mkdir EACCES nth=0 once: the first call only"};

		snprintf(dir, sizeof(dir), "%s/fault%d", area, round);
		mkdir(dir, 0755);
		proc_opts_init(&o);
		if (round) {
			o.fault_syscall = "mkdir";
			o.fault_errno = EACCES;
			o.fault_nth = nth[round];
			o.fault_once = once[round];
		}
		rc = run_helper(&o, &r, "mkdir3", dir, NULL);
		t_ok(rc == 0 && !strcmp(r.out, want[round]), "%s (%s)", what[round],
		     rc ? strerror(-rc) : flat(r.out));
		if (round == 1 || once[round])
			t_ok(r.fault_calls == 3 && r.fault_failed == (round == 1 ? 2u : 1u),
			     "%s: 3 calls seen, %d failed (%llu, %llu)", what[round],
			     round == 1 ? 2 : 1, (unsigned long long)r.fault_calls,
			     (unsigned long long)r.fault_failed);
		proc_result_free(&r);
	}
	proc_opts_init(&o);
	o.fault_syscall = "no_such_syscall";
	o.fault_errno = EPERM;
	rc = run_helper(&o, &r, "mkdir3", dir, NULL);
	t_ok(rc == -EINVAL, "fault: an unknown syscall name is -EINVAL");
	proc_result_free(&r);
	test_fault_more();
}

/* ---- hold ----------------------------------------------------------------- */

struct hold_probe {
	int calls, k;
	char syscall[32];
	long nr_at_action; /* /proc/pid/syscall: the call the target is in */
	const char *create; /* file to create in the action, or NULL */
};

static int probe_action(void *ctx, int k, const char *syscall, pid_t pid)
{
	struct hold_probe *h = ctx;
	char p[64], buf[256];
	int fd;
	ssize_t n;

	h->calls++;
	h->k = k;
	snprintf(h->syscall, sizeof(h->syscall), "%s", syscall);
	snprintf(p, sizeof(p), "/proc/%d/syscall", (int)pid);
	fd = open(p, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			h->nr_at_action = strtol(buf, NULL, 10);
		}
		close(fd);
	}
	if (h->create)
		close(open(h->create, O_WRONLY | O_CREAT, 0644));
	return 42;
}

/* Run o once and return how many held calls it made (rc |= the run's). */
static uint64_t calls_of(const struct proc_opts *o, int *rc)
{
	struct proc_result r;
	uint64_t n;

	*rc |= proc_run(o, &r);
	n = r.hold_calls;
	proc_result_free(&r);
	return n;
}

static void test_hold(void)
{
	const char *openat_only[] = {"openat", NULL};
	const char *exec_open[] = {"execve", "openat", NULL};
	char *true_argv[] = {(char *)"/bin/true", NULL};
	struct proc_opts o;
	struct proc_result r;
	struct hold_probe h = {0};
	uint64_t n1, n2, total;
	int rc;

	proc_opts_init(&o);
	o.argv = true_argv;
	o.hold_syscalls = openat_only;
	rc = proc_run(&o, &r);
	n1 = r.hold_calls;
	t_ok(rc == 0 && r.exit_code == 0 && n1 > 0 && !r.hold_hit,
	     "hold_count: /bin/true makes %llu openat calls", (unsigned long long)n1);
	proc_result_free(&r);
	rc = proc_run(&o, &r);
	n2 = r.hold_calls;
	t_ok(rc == 0 && n2 == n1, "hold_count: the count is stable (%llu)",
	     (unsigned long long)n2);
	proc_result_free(&r);

	o.hold_syscalls = exec_open;
	rc = proc_run(&o, &r);
	total = r.hold_calls;
	proc_result_free(&r);
	o.hold_at = 3;
	o.hold_action = probe_action;
	o.hold_ctx = &h;
	rc = proc_run(&o, &r);
	t_ok(rc == 0 && total >= 3 && r.hold_hit && h.calls == 1 && h.k == 3 &&
	     !strcmp(h.syscall, "openat") && r.action_rc == 42 && r.exit_code == 0 &&
	     r.hold_calls == total,
	     "hold at k=3 of {execve, openat} of /bin/true: the action runs once "
	     "(%d calls, %s, total %llu)", h.calls, h.syscall,
	     (unsigned long long)r.hold_calls);
	t_ok(h.nr_at_action == SYS_openat,
	     "hold: during the action the target is blocked in openat (nr %ld)",
	     h.nr_at_action);
	proc_result_free(&r);

	memset(&h, 0, sizeof(h));
	o.hold_at = (int)total + 1;
	rc = proc_run(&o, &r);
	t_ok(rc == 0 && !r.hold_hit && h.calls == 0,
	     "hold at k beyond the count: no action");
	proc_result_free(&r);

	o.hold_syscalls = (const char *[]){"openat", "nonsense_call", NULL};
	t_ok(proc_run(&o, &r) == -EINVAL, "hold: an unknown syscall name is -EINVAL");
	proc_result_free(&r);
}

/* hold_comm: only the calls of processes of that comm count (the command's
 * own, not its runner's).  Two cats under sh make exactly twice the calls
 * of one cat alone; the held process is a cat. */
static int comm_action(void *ctx, int k, const char *syscall, pid_t pid)
{
	char p[64];
	int fd;
	ssize_t n;

	(void)k;
	(void)syscall;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, ctx, 31);
	close(fd);
	((char *)ctx)[n > 0 ? n : 0] = '\0';
	((char *)ctx)[strcspn(ctx, "\n")] = '\0';
	return 0;
}

static void test_hold_comm(void)
{
	const char *openat_only[] = {"openat", NULL};
	char *one[] = {(char *)"/bin/cat", (char *)"/dev/null", NULL};
	char *two[] = {(char *)"/bin/sh", (char *)"-c",
		       (char *)"/bin/cat /dev/null; /bin/cat /dev/null", NULL};
	char comm[32] = "";
	struct proc_opts o;
	struct proc_result r;
	uint64_t alone, all;
	uint64_t cats;
	int rc;

	proc_opts_init(&o);
	o.hold_syscalls = openat_only;
	o.argv = one;
	rc = 0;
	alone = calls_of(&o, &rc);
	o.argv = two;
	all = calls_of(&o, &rc);
	o.hold_comm = "cat";
	cats = calls_of(&o, &rc);
	t_ok(rc == 0 && alone > 0 && cats == 2 * alone && all > cats,
	     "hold comm=cat: sh running two cats counts %llu calls = 2 x %llu (all processes: %llu)",
	     (unsigned long long)cats, (unsigned long long)alone, (unsigned long long)all);
	o.hold_at = 1;
	o.hold_action = comm_action;
	o.hold_ctx = comm;
	rc = proc_run(&o, &r);
	t_ok(rc == 0 && r.hold_hit && !strcmp(comm, "cat"),
	     "hold comm=cat at 1: the held process is a cat (%s)", comm);
	proc_result_free(&r);
	o.hold_action = NULL;
	o.hold_comm = "nosuchcomm";
	rc = proc_run(&o, &r);
	t_ok(rc == 0 && r.hold_calls == 0 && !r.hold_hit, "hold comm nobody has: nothing counts");
	proc_result_free(&r);
	o.hold_comm = "sixteen-bytes-xx";
	t_ok(proc_run(&o, &r) == -EINVAL, "hold comm longer than 15 bytes: -EINVAL");
	proc_result_free(&r);
}

/* The action runs before the held call proceeds: at the program's last
 * openat the action creates the very file it opens. */
static void test_hold_before(const char *mode, const char *label,
			     const char *expect_hit, const char *expect_miss)
{
	const char *openat_only[] = {"openat", NULL};
	char target[PATH_MAX];
	struct proc_opts o;
	struct proc_result r;
	struct hold_probe h = {0};
	uint64_t n;
	int rc;

	snprintf(target, sizeof(target), "%s/held-%s", area, mode);
	unlink(target);
	proc_opts_init(&o);
	o.hold_syscalls = openat_only;
	rc = run_helper(&o, &r, mode, target, NULL);
	n = r.hold_calls;
	t_ok(rc == 0 && n > 0 && !strcmp(r.out, expect_miss),
	     "%s: control run counts %llu openat, file absent (%s)", label,
	     (unsigned long long)n, flat(r.out));
	proc_result_free(&r);

	h.create = target;
	o.hold_at = (int)n;
	o.hold_action = probe_action;
	o.hold_ctx = &h;
	rc = run_helper(&o, &r, mode, target, NULL);
	t_ok(rc == 0 && r.hold_hit && h.calls == 1 && !strcmp(r.out, expect_hit),
	     "%s: the action at k=%llu ran before the call proceeded (%s)", label,
	     (unsigned long long)n, flat(r.out));
	proc_result_free(&r);
	unlink(target);
}

/* ---- namespaces ------------------------------------------------------------ */

static void test_private_mounts(void)
{
	char dir[512], mnt[PATH_MAX], landed[PATH_MAX], buf[16] = "";
	const char *prefixes[] = {dir, NULL};
	struct census_opts co = {.mount_prefixes = prefixes};
	struct census before, after, diff;
	struct proc_opts o;
	struct proc_result r;
	struct stat host_ns;
	unsigned long child_ns = 0;
	unsigned int child_uid = 0;
	int rc, fd;

	snprintf(dir, sizeof(dir), "%s/pm", area);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(landed, sizeof(landed), "%s/landed", dir);
	mkdir(dir, 0755);
	mkdir(mnt, 0755);
	stat("/proc/self/ns/mnt", &host_ns);
	census_take(&co, &before);
	proc_opts_init(&o);
	o.private_mounts = true;
	rc = run_helper(&o, &r, "mount", dir, NULL);
	census_take(&co, &after);
	census_diff(&before, &after, &diff);
	sscanf(r.out, "mntns=%lu uid=%u", &child_ns, &child_uid);
	t_ok(rc == 0 && r.setup_err == 0 && child_ns && child_ns != host_ns.st_ino,
	     "private mounts: the program runs in another mount namespace (%s%s)",
	     r.setup_step, flat(r.out));
	t_ok(child_uid == getuid(), "private mounts: the program keeps its uid (%u)",
	     child_uid);
	if (strstr(r.out, "mount=ok"))
		t_ok(diff.n == 0, "private mounts: the program's tmpfs is not in the "
		     "host mount table (%zu new)", diff.n);
	else
		t_skipped("the program cannot mount here (no CAP_SYS_ADMIN after exec)");
	fd = open(landed, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	t_ok(!strcmp(buf, "hello"), "private mounts: the file write landed on the host");
	/* If the namespace leaked, leave no mount behind. */
	for (size_t i = 0; i < diff.n; i++)
		umount2(mnt, MNT_DETACH);
	census_free(&before);
	census_free(&after);
	census_free(&diff);
	proc_result_free(&r);
}

/* A user+network namespace held by a child of ours; the program joins it,
 * alone and combined with a hold and a fault (listener across userns). */
static void test_join_ns(void)
{
	const char *openat_only[] = {"openat", NULL};
	struct proc_opts o;
	struct proc_result r;
	struct stat nst;
	unsigned long net = 0, user = 0;
	char path[64], dir[PATH_MAX];
	int p[2], ufd, nfd, rc;
	pid_t holder;
	char c;

	if (pipe(p) < 0)
		return;
	holder = fork();
	if (holder == 0) {
		char map[64];
		uid_t uid = geteuid();
		gid_t gid = getegid();
		int fd;

		close(p[0]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(1);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			_exit(1);
		close(fd);
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd < 0 || write(fd, "deny", 4) < 0)
			_exit(1);
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			_exit(1);
		close(fd);
		if (write(p[1], "r", 1) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		t_skipped("cannot create a user+network namespace here");
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
		return;
	}
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)holder);
	ufd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)holder);
	nfd = open(path, O_RDONLY | O_CLOEXEC);
	fstat(nfd, &nst);

	proc_opts_init(&o);
	o.userns_fd = ufd;
	o.netns_fd = nfd;
	rc = run_helper(&o, &r, "ns", NULL, NULL);
	sscanf(r.out, "net=%lu user=%lu", &net, &user);
	t_ok(rc == 0 && net == nst.st_ino, "namespaces: the program joined the given "
	     "user and network namespaces (%s%s)", r.setup_step, flat(r.out));
	proc_result_free(&r);

	o.private_mounts = true;
	o.hold_syscalls = openat_only;
	rc = run_helper(&o, &r, "ns", NULL, NULL);
	t_ok(rc == 0 && r.exit_code == 0 && r.hold_calls > 0,
	     "namespaces + private mounts + hold_count: %llu openat counted (%s)",
	     (unsigned long long)r.hold_calls, rc ? strerror(-rc) : r.setup_step);
	proc_result_free(&r);

	/* Unprivileged, private mounts alone make a user namespace: the
	 * listener must still reach the parent. */
	snprintf(dir, sizeof(dir), "%s/faultns", area);
	mkdir(dir, 0755);
	proc_opts_init(&o);
	o.private_mounts = true;
	o.fault_syscall = "mkdir";
	o.fault_errno = EACCES;
	o.fault_nth = 2;
	rc = run_helper(&o, &r, "mkdir3", dir, NULL);
	t_ok(rc == 0 && !strcmp(r.out, "ok EACCES EACCES\n"),
	     "private mounts + fault nth=2: ok, EACCES, EACCES (%s)",
	     rc ? strerror(-rc) : flat(r.out));
	proc_result_free(&r);

	close(ufd);
	close(nfd);
	kill(holder, SIGKILL); /* ours, unreaped */
	waitpid(holder, NULL, 0);
}

/* ---- swap ------------------------------------------------------------------ */

static bool same_entry(const char *p, const struct stat *want)
{
	struct stat st;

	return lstat(p, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

static void test_swap(void)
{
	char *a = apath("swap-dir"), *b = apath("swap-link");
	struct stat sa, sb, st;
	struct swapper *s = NULL;
	uint64_t n = 0;
	int rc, seen_dir = 0, seen_link = 0;

	mkdir(a, 0755);
	if (symlink("/nonexistent-target", b) < 0)
		return;
	lstat(a, &sa);
	lstat(b, &sb);
	rc = swap_exchange(a, b);
	t_ok(rc == 0 && same_entry(a, &sb) && same_entry(b, &sa),
	     "swap_exchange: a directory and a symlink trade places");
	swap_exchange(a, b);
	t_ok(swap_exchange(a, apath("missing")) == -ENOENT,
	     "swap_exchange: a missing path is -ENOENT");

	rc = swap_start(a, b, &s);
	for (int i = 0; i < 200000 && rc == 0 && !(seen_dir && seen_link); i++) {
		if (lstat(a, &st) == 0) {
			seen_dir |= S_ISDIR(st.st_mode);
			seen_link |= S_ISLNK(st.st_mode);
		}
	}
	sleep_ms(100);
	rc = rc ? rc : swap_stop(s, &n);
	t_ok(rc == 0 && seen_dir && seen_link && n >= 100,
	     "swapper: exchanges in a tight loop (%llu exchanges, both seen at a)",
	     (unsigned long long)n);
	t_ok(same_entry(a, &sa) && same_entry(b, &sb),
	     "swapper: stop restores the original arrangement");

	/* Killed mid-loop, the count may be off: stop restores by identity. */
	for (int i = 0; i < 5; i++) {
		s = NULL;
		rc = swap_start(a, b, &s);
		if (rc == 0) {
			sleep_ms(5 + i * 3);
			kill(swap_pid(s), SIGKILL); /* ours, unreaped */
			rc = swap_stop(s, &n);
		}
		if (rc < 0 || !same_entry(a, &sa) || !same_entry(b, &sb))
			break;
	}
	t_ok(rc == 0 && same_entry(a, &sa) && same_entry(b, &sb),
	     "swapper: killed at random points, stop still restores");
	t_ok(swap_start(a, apath("missing"), &s) == -ENOENT,
	     "swap_start: a pair that cannot be exchanged fails at once");

	/* The swapper dies with its parent. */
	{
		int p[2];
		pid_t mid, sw = -1;

		if (pipe(p) < 0)
			return;
		mid = fork();
		if (mid == 0) {
			struct swapper *ms;

			close(p[0]);
			if (swap_start(a, b, &ms) == 0) {
				int pid = swap_pid(ms);

				if (write(p[1], &pid, sizeof(pid)) < 0)
					_exit(1);
			}
			sleep_ms(50); /* the swapper is in its loop by now */
			_exit(0); /* without swap_stop */
		}
		close(p[1]);
		if (read(p[0], &sw, sizeof(sw)) != sizeof(sw))
			sw = -1;
		close(p[0]);
		waitpid(mid, NULL, 0);
		for (int i = 0; i < 200 && alive(sw); i++)
			sleep_ms(10);
		t_ok(sw > 0 && !alive(sw), "swapper: dies with its parent");
		/* It re-parented to us (subreaper), so the pid is still its
		 * own until we reap it: end it if it survived, reap, restore. */
		if (sw > 0) {
			if (alive(sw))
				kill(sw, SIGKILL);
			waitpid(sw, NULL, 0);
		}
		if (same_entry(a, &sb))
			swap_exchange(a, b);
	}
}

/* ---- census ---------------------------------------------------------------- */

static void test_census(void)
{
	char *tdir = apath("tmpdir"), *ldir = apath("locks");
	const char *temps[] = {tdir, NULL};
	struct census_opts co = {.temp_dirs = temps, .lock_dir = ldir};
	struct census before, after, diff;
	char f[PATH_MAX];
	int fd, st, p[2];
	pid_t pid;

	mkdir(tdir, 0755);
	mkdir(ldir, 0755);
	snprintf(f, sizeof(f), "%s/old", tdir);
	close(open(f, O_WRONLY | O_CREAT, 0644));
	snprintf(f, sizeof(f), "%s/lease", ldir);
	fd = open(f, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	census_take(&co, &before);
	census_take(&co, &after);
	census_diff(&before, &after, &diff);
	t_ok(before.n > 0 && diff.n == 0, "census: two snapshots of a quiet host "
	     "differ in nothing (%zu items, %zu new)", before.n, diff.n);
	census_free(&after);
	census_free(&diff);

	snprintf(f, sizeof(f), "%s/sub", tdir);
	mkdir(f, 0755);
	snprintf(f, sizeof(f), "%s/sub/leftover", tdir);
	close(open(f, O_WRONLY | O_CREAT, 0644));
	flock(fd, LOCK_EX);
	census_take(&co, &after);
	census_diff(&before, &after, &diff);
	t_ok(count_kind(&diff, CENSUS_FILE, "sub/leftover") == 1 &&
	     count_kind(&diff, CENSUS_FILE, NULL) == 2,
	     "census: diff shows a leftover file (and its new directory)");
	t_ok(count_kind(&diff, CENSUS_LOCK, "lease") == 1 &&
	     count_kind(&diff, CENSUS_LOCK, "FLOCK") == 1 && diff.n == 3,
	     "census: diff shows a held flock on a file under the lock dir");
	census_free(&after);
	census_free(&diff);
	flock(fd, LOCK_UN);
	close(fd);
	census_free(&before);

	/* Mounts: in a child with its own user+mount namespace, so the test
	 * needs no privilege and leaves nothing on the host. */
	if (pipe(p) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		char dir[PATH_MAX], mnt[PATH_MAX], res[8];
		const char *pre[] = {dir, NULL};
		struct census_opts mo = {.mount_prefixes = pre};
		struct census b, a, d;

		close(p[0]);
		snprintf(dir, sizeof(dir), "%s/mnt-census", area);
		snprintf(mnt, sizeof(mnt), "%s/mnt-census/m", area);
		mkdir(dir, 0755);
		mkdir(mnt, 0755);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(2);
		census_take(&mo, &b);
		if (mount("sp-census", mnt, "tmpfs", 0, NULL) < 0)
			_exit(2);
		census_take(&mo, &a);
		census_diff(&b, &a, &d);
		res[0] = count_kind(&d, CENSUS_MOUNT, "sp-census") == 1 && d.n == 1 ? 'y' : 'n';
		census_free(&a);
		census_free(&d);
		umount2(mnt, MNT_DETACH);
		census_take(&mo, &a);
		census_diff(&b, &a, &d);
		res[1] = d.n == 0 ? 'y' : 'n';
		if (write(p[1], res, 2) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	{
		char res[2] = "";
		ssize_t n = read(p[0], res, 2);

		close(p[0]);
		waitpid(pid, &st, 0);
		if (n != 2) {
			t_skipped("no user+mount namespace for the mount census");
		} else {
			t_ok(res[0] == 'y', "census: diff shows a leftover mount under the prefix");
			t_ok(res[1] == 'y', "census: nothing once the mount is gone");
		}
	}
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return child_main(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	snprintf(area, sizeof(area), "/tmp/sp-prims.XXXXXX");
	if (!mkdtemp(area) || chmod(area, 0755) < 0)
		return 1;

	t_ok(proc_init() == 0, "proc_init: the test is a child subreaper");
	test_capture();
	test_timeout_tree();
	test_sweep_spares();
	test_fault();
	test_hold();
	test_hold_comm();
	test_hold_before("openlast", "hold + plain program", "ok\n", "ENOENT\n");
	test_hold_before("selffilter", "hold + program with its own seccomp filter",
			 "open=ok mkdir=EPERM notify=EBUSY\n",
			 "open=ENOENT mkdir=EPERM notify=EBUSY\n");
	test_private_mounts();
	test_join_ns();
	test_swap();
	test_census();

	proc_kill_descendants(0);
	rm_tree(area);
	return t_done();
}
