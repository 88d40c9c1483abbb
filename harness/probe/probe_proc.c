/* probe_proc.c - process operations of the probe: identity, signals,
 * sleeping, daemonizing, flooding output, environment, ending the probe. */
#include "probe.h"

#include "fdpipe.h"
#include "names.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SANDPROOF_PROBE_LINUX
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Accepts "TERM", "SIGTERM" (any case) or a number 0..SIGRTMAX. */
int probe_signal_number(const char *name)
{
	long long v;

	if (probe_parse_ll(name, 0, SIGRTMAX, &v) == 0)
		return (int)v;
	return names_signal_value(name);
}

static void probe_op_getpid(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	(void)ctx, (void)a, (void)n;
	probe_field_int(res, "pid", (long long)getpid());
	probe_field_int(res, "ppid", (long long)getppid());
	probe_field_int(res, "uid", (long long)getuid());
	probe_field_int(res, "gid", (long long)getgid());
}

/* PID must be positive: kill(-1) or a process group would reach far more
 * than one process when the probe runs with no sandbox at all. */
static int probe_check_kill(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 1, 0x7fffffff, &v) < 0)
		return probe_check_msg(msg, len, "PID must be a positive number, not \"%s\"", a[0]);
	if (probe_signal_number(a[1]) < 0)
		return probe_check_msg(msg, len, "unknown signal \"%s\"", a[1]);
	return 0;
}

static void probe_op_kill(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	long long pid = 0;

	(void)ctx, (void)n;
	probe_parse_ll(a[0], 1, 0x7fffffff, &pid);
	if (kill((pid_t)pid, probe_signal_number(a[1])) < 0)
		probe_res_fail(res, errno, NULL);
}

static int probe_check_sleep(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 0, 86400000, &v) < 0)
		return probe_check_msg(msg, len, "MS must be 0..86400000, not \"%s\"", a[0]);
	return 0;
}

static void probe_op_sleep(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	long long ms = 0;
	struct timespec ts;

	(void)ctx, (void)n, (void)res;
	probe_parse_ll(a[0], 0, 86400000, &ms);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int probe_check_group(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 1, 1000000, &v) < 0)
		return probe_check_msg(msg, len, "N must be 1..1000000, not \"%s\"", a[0]);
	return 0;
}

/* group N: the next N operations (fewer at the end of the list or of an
 * enclosing group) run in a forked child, so what they change in the
 * process (a user namespace, an exit, a signal) never reaches the
 * operations after the group.  The child prints their lines and exits
 * like the probe; the parent waits for it and prints the group's own line
 * after them.  If the fork fails the group's operations are skipped, never
 * run in the parent. */
static void probe_op_group(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	long long cnt = 1;
	int status;
	pid_t pid;

	(void)n;
	probe_parse_ll(a[0], 1, 1000000, &cnt);
	int end = probe_group_end(ctx, cnt);

	ctx->next = end;
	pid = fork();
	if (pid < 0) {
		probe_res_fail(res, errno, "fork");
		return;
	}
	if (pid == 0) {
		/* the parent's echo servers stay the parent's to reap */
		ctx->n_echo = 0;
		ctx->group_end = end;
		ctx->next = 0;
		res->emitted = true;
		return;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			probe_res_fail(res, errno, "wait");
			return;
		}
	}
	probe_field_int(res, "pid", (long long)pid);
	if (WIFEXITED(status))
		probe_field_int(res, "exit", WEXITSTATUS(status));
	else
		probe_field_null(res, "exit");
	if (WIFSIGNALED(status))
		probe_field_int(res, "signal", WTERMSIG(status));
	else
		probe_field_null(res, "signal");
}

struct probe_daemon_msg {
	int err;
	pid_t pid;
};

/* The grandchild: records its pid, reports to the probe, then lives until
 * killed.  It runs with stdio on /dev/null (a daemon does not hold the
 * runner's capture pipes) and in /, like a real daemon. */
static void probe_daemon_body(const char *pidfile, int report)
{
	struct probe_daemon_msg m = {0, getpid()};
	char line[32];
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int len = snprintf(line, sizeof(line), "%ld\n", (long)m.pid);

	if (fd < 0)
		m.err = errno;
	else if (probe_write_all(fd, line, (size_t)len) < 0 || close(fd) < 0)
		m.err = errno ? errno : EIO;
	(void)probe_write_all(report, &m, sizeof(m));
	if (m.err)
		_exit(1);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (chdir("/") < 0) {
		/* stays where it is: the pidfile is written already */
	}
	/* Nothing of the probe's (listeners, the report pipe) stays open. */
#ifdef SANDPROOF_PROBE_LINUX
	syscall(SYS_close_range, 3, ~0U, 0);
#else
	for (long k = 3, max = sysconf(_SC_OPEN_MAX); k < max && k < 65536; k++)
		close((int)k);
#endif
	signal(SIGPIPE, SIG_DFL);
	for (;;)
		pause();
}

/* setsid + double fork: the grandchild is in a new session, orphaned and
 * reparented away from the probe, the way a daemon escapes a process
 * tree.  A pipe carries its pid and the pidfile result back, so ok means
 * the pidfile holds the daemon's pid. */
static void probe_op_spawn_daemon(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	struct probe_daemon_msg m = {0, 0};
	int p[2], st, rc;
	pid_t mid;
	ssize_t r;

	(void)ctx, (void)n;
	if ((rc = fdpipe_open(p, O_CLOEXEC)) < 0) {
		probe_res_fail(res, -rc, "pipe");
		return;
	}
	mid = fork();
	if (mid < 0) {
		probe_res_fail(res, errno, "fork");
		close(p[0]);
		close(p[1]);
		return;
	}
	if (mid == 0) {
		pid_t g;

		close(p[0]);
		if (setsid() < 0) {
			m.err = errno;
			(void)probe_write_all(p[1], &m, sizeof(m));
			_exit(1);
		}
		g = fork();
		if (g < 0) {
			m.err = errno;
			(void)probe_write_all(p[1], &m, sizeof(m));
			_exit(1);
		}
		if (g == 0)
			probe_daemon_body(a[0], p[1]);
		_exit(0);
	}
	close(p[1]);
	do
		r = read(p[0], &m, sizeof(m));
	while (r < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof(m)) {
		probe_res_fail(res, r < 0 ? errno : ECHILD, "fork");
		return;
	}
	if (m.err) {
		probe_res_fail(res, m.err, m.pid ? "pidfile" : "setsid");
		return;
	}
	probe_field_int(res, "pid", (long long)m.pid);
}

static int probe_check_flood(char **a, int n, char *msg, size_t len)
{
	long long v;

	if (probe_parse_ll(a[0], 0, 1LL << 40, &v) < 0)
		return probe_check_msg(msg, len, "BYTES must be 0..2^40, not \"%s\"", a[0]);
	if (n == 2 && strcmp(a[1], "stdout") != 0 && strcmp(a[1], "stderr") != 0)
		return probe_check_msg(msg, len, "stream must be stdout or stderr, not \"%s\"", a[1]);
	return 0;
}

/* Lines of 'x' ending in '\n' (the last byte is always '\n'), so on stdout
 * the next JSON line still starts a line. */
static void probe_op_flood(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	static char chunk[65536];
	long long total = 0, done = 0;
	int fd = (n == 2 && strcmp(a[1], "stderr") == 0) ? STDERR_FILENO : STDOUT_FILENO;

	(void)ctx;
	probe_parse_ll(a[0], 0, 1LL << 40, &total);
	for (size_t k = 0; k < sizeof(chunk); k++)
		chunk[k] = (k % 64 == 63) ? '\n' : 'x';
	while (done < total) {
		long long left = total - done;
		size_t len = left > (long long)sizeof(chunk) ? sizeof(chunk) : (size_t)left;
		int rc;

		if (left <= (long long)sizeof(chunk)) {
			/* The last piece: end it with a newline. */
			chunk[len - 1] = '\n';
		}
		rc = probe_write_all(fd, chunk, len);
		if (rc < 0) {
			probe_res_fail(res, -rc, "write");
			break;
		}
		done += (long long)len;
	}
	probe_field_int(res, "written", done);
}

static void probe_op_env(struct probe_ctx *ctx, char **a, int n,
			 struct probe_res *res)
{
	const char *v = getenv(a[0]);

	(void)ctx, (void)n;
	if (!v) {
		probe_field_null(res, "value");
		return;
	}
	size_t len = strlen(v);

	probe_field_str(res, "value", v, len > PROBE_DATA_MAX ? PROBE_DATA_MAX : len);
	probe_field_bool(res, "truncated", len > PROBE_DATA_MAX);
}

static int probe_check_exit(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 0, 255, &v) < 0)
		return probe_check_msg(msg, len, "CODE must be 0..255, not \"%s\"", a[0]);
	return 0;
}

/* Prints its own line first: nothing runs after it. */
static void probe_op_exit(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	long long code = 0;

	(void)n;
	probe_parse_ll(a[0], 0, 255, &code);
	probe_field_int(res, "code", code);
	probe_emit(ctx->index, "exit", res);
	probe_reap_echo(ctx);
	_exit((int)code);
}

static int probe_check_signal(char **a, int n, char *msg, size_t len)
{
	(void)n;
	if (probe_signal_number(a[0]) < 1)
		return probe_check_msg(msg, len, "unknown signal \"%s\"", a[0]);
	return 0;
}

/* The line is printed before raising: a fatal signal leaves no after.  The
 * default action is restored and the signal unblocked, so SIGPIPE (which
 * the probe ignores) and inherited dispositions do not mask it.  When the
 * signal is not fatal (SIGCHLD, SIGCONT...) the probe goes on, and res is
 * marked emitted so the line is not printed twice. */
static void probe_op_signal(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	int sig = probe_signal_number(a[0]);
	bool known;
	const char *name = names_signal(sig, &known);
	sigset_t set;

	(void)n;
	probe_field_int(res, "signal", sig);
	if (known)
		probe_field_cstr(res, "name", name);
	probe_emit(ctx->index, "signal", res);
	res->emitted = true;
	/* Echo servers die by PR_SET_PDEATHSIG if this signal is fatal. */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

const struct probe_op probe_proc_ops[] = {
	{"getpid", 0, 0, "", NULL, probe_op_getpid},
	{"kill", 2, 2, "PID SIG", probe_check_kill, probe_op_kill},
	{"sleep", 1, 1, "MS", probe_check_sleep, probe_op_sleep},
	{"group", 1, 1, "N", probe_check_group, probe_op_group},
	{"spawn_daemon", 1, 1, "PIDFILE", NULL, probe_op_spawn_daemon},
	{"flood", 1, 2, "BYTES [stdout|stderr]", probe_check_flood, probe_op_flood},
	{"env", 1, 1, "NAME", NULL, probe_op_env},
	{"exit", 1, 1, "CODE", probe_check_exit, probe_op_exit},
	{"signal", 1, 1, "SIG", probe_check_signal, probe_op_signal},
	{NULL, 0, 0, NULL, NULL, NULL},
};
