/* launch.c - starting the command under sandbox-exec, and what follows.
 *
 * sandbox-exec compiles the profile, applies it to itself and execvp()s
 * the command in the same process, so its own failures (a profile it
 * refuses: exit 65; an exec that fails: exit 71) would look like the
 * command's exit status.  They are told apart before the command runs:
 * the preflight starts sandbox-exec with the run's profile and a command
 * that cannot exist, and only its "execvp() of '<that path>' failed" exit
 * proves the profile compiled and was applied; anything else is a typed
 * setup failure and the command is never started (SETUP-1).  The command
 * itself is resolved by the plan (execvp's rules), so a command that does
 * not exist is an exec failure of ours, not sandbox-exec's exit 71.
 * After the preflight, the canary (canary.c) tries under the same profile
 * what it must refuse; the command starts only when nothing got through.
 *
 * The tree is the command's process group (a new session): the kill is
 * the group's, as the posix launcher's (a process that leaves the group
 * escapes it; macOS has no subreaper). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seatbelt.h"

#define PREFLIGHT_MS 10000
#define PREFLIGHT_ERR_MAX 512

/* A close-on-exec pipe (the runner is single-threaded: no exec can
 * slip in between pipe() and fcntl()).  0 or -1 with errno. */
static int fdpipe_local(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* What the child reports when it fails before sandbox-exec runs. */
struct child_report {
	char step[32];
	int err;
};

/* Only 0, 1, 2 reach the command (PRIV-4): every other descriptor is
 * closed (the report pipe is close-on-exec). */
static void child_close_fds(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

_Noreturn static void child_fail(int rep, const char *step, int err)
{
	struct child_report r;

	memset(&r, 0, sizeof(r));
	snprintf(r.step, sizeof(r.step), "%s", step);
	r.err = err;
	if (write(rep, &r, sizeof(r)) < 0) {
		/* the parent sees EOF without a report: setup failed all the same */
	}
	_exit(127);
}

/* The post-fork child: a new session, stdio, the working directory, the
 * rlimits, then sandbox-exec.  Dies on any failure, reporting it. */
_Noreturn static void child_run(const struct plan *p, char **argv, const struct launch_stdio *io,
				int rep)
{
	int fds[3] = {io->in, io->out, io->err};

	if (setsid() < 0)
		child_fail(rep, "setsid", errno);
	for (int i = 0; i < 3; i++) {
		int d = fds[i] == i ? i : dup2(fds[i], i);

		if (d < 0)
			child_fail(rep, "stdio", errno);
		if (fds[i] == i)
			fcntl(i, F_SETFD, 0);
	}
	child_close_fds(rep);
	if (chdir(p->req->cwd) < 0)
		child_fail(rep, "chdir", errno);
	for (size_t i = 0; i < p->n_rl; i++) {
		struct rlimit rl = {(rlim_t)p->rl[i].value, (rlim_t)p->rl[i].value};

		if (setrlimit(p->rl[i].resource, &rl) < 0) {
			char step[32];

			snprintf(step, sizeof(step), "limits:%s", limit_names[p->rl[i].id]);
			child_fail(rep, step, errno);
		}
	}
	signal(SIGPIPE, SIG_DFL);
	execve(SP_SANDBOX_EXEC, argv, p->envp.v);
	child_fail(rep, "sandbox-exec", errno);
}

static const char *step_detail(const char *step)
{
	if (strcmp(step, "sandbox-exec") == 0)
		return "cannot execute " SP_SANDBOX_EXEC;
	if (strcmp(step, "chdir") == 0)
		return "cannot enter the working directory";
	if (strncmp(step, "limits:", 7) == 0)
		return "cannot apply the resource limit";
	return "cannot prepare the command's process";
}

/* Fork the child; wait for its report (EOF: sandbox-exec was exec'd).
 * 0 with *pid and st->result set, or -errno when nothing started. */
static int spawn(const struct plan *p, char **argv, const struct launch_stdio *io, pid_t *pid,
		 struct launch_status *st)
{
	struct child_report r;
	int rep[2];
	ssize_t n;

	if (fdpipe_local(rep) < 0)
		return seatbelt_fail(&st->setup, "pipe", NULL, errno, NULL);
	*pid = fork();
	if (*pid < 0) {
		int e = errno;

		close(rep[0]);
		close(rep[1]);
		return seatbelt_fail(&st->setup, "fork", NULL, e, NULL);
	}
	if (*pid == 0) {
		close(rep[0]);
		child_run(p, argv, io, rep[1]);
	}
	close(rep[1]);
	while ((n = read(rep[0], &r, sizeof(r))) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (n == 0) {
		st->result = LAUNCH_RUNNING;
		return 0;
	}
	st->result = LAUNCH_SETUP_FAILED;
	if (n != (ssize_t)sizeof(r))
		seatbelt_fail(&st->setup, "report", NULL, EPROTO, "a short report from the child");
	else
		seatbelt_fail(&st->setup, r.step, NULL, r.err, step_detail(r.step));
	return 0;
}

/* Read fd until EOF or ms (what does not fit in buf is drained). */
static size_t read_until(int fd, char *buf, size_t cap, int ms, bool *timed_out)
{
	size_t len = 0;
	int waited = 0;

	*timed_out = false;
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		char sink[256];
		ssize_t n;
		int r = poll(&pf, 1, 100);

		if (r == 0 && (waited += 100) >= ms) {
			*timed_out = true;
			return len;
		}
		if (r <= 0)
			continue;
		n = read(fd, len < cap - 1 ? buf + len : sink,
			 len < cap - 1 ? cap - 1 - len : sizeof(sink));
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return len;
		if (n > 0 && len < cap - 1)
			len += (size_t)n;
	}
}

/* The verdict on a finished preflight: 0 when sandbox-exec got as far as
 * execvp of the absent command, else the setup error. */
static int preflight_judge(int status, const char *text, const char *absent,
			   struct setup_error *err)
{
	char want[1100], d[256];
	size_t line = strcspn(text, "\n");

	snprintf(want, sizeof(want), "sandbox-exec: execvp() of '%s' failed", absent);
	if (WIFEXITED(status) && WEXITSTATUS(status) == SEATBELT_EXIT_EXEC &&
	    strncmp(text, want, strlen(want)) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(d, sizeof(d), "sandbox-exec died of signal %d before the command: %.*s",
			 WTERMSIG(status), (int)(line > 180 ? 180 : line), text);
	else
		snprintf(d, sizeof(d), "sandbox-exec refused the profile (exit %d): %.*s",
			 WEXITSTATUS(status), (int)(line > 180 ? 180 : line), text);
	return seatbelt_fail(err, "seatbelt", NULL, WIFEXITED(status) &&
			     WEXITSTATUS(status) == 65 ? EINVAL : EPROTO, d);
}

int seatbelt_preflight(const struct plan *p, struct setup_error *err)
{
	char absent[1024], text[PREFLIGHT_ERR_MAX] = "";
	size_t k = 0, len;
	struct launch_status st;
	struct launch_stdio io;
	int ep[2], nul, status = 0, rc;
	bool timed_out;
	char **argv;
	pid_t pid;

	snprintf(absent, sizeof(absent), "%s/.sandproof-preflight-absent",
		 p->tmpdir ? p->tmpdir : "/nonexistent");
	while (strcmp(p->argv.v[k], "--") != 0)
		k++;
	argv = calloc(k + 3, sizeof(*argv));
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!argv || nul < 0 || fdpipe_local(ep) < 0) {
		rc = seatbelt_fail(err, "preflight", NULL, argv ? errno : ENOMEM, NULL);
		free(argv);
		if (nul >= 0)
			close(nul);
		return rc;
	}
	memcpy(argv, p->argv.v, (k + 1) * sizeof(*argv));
	argv[k + 1] = absent;
	io = (struct launch_stdio){nul, nul, ep[1]};
	memset(&st, 0, sizeof(st));
	rc = spawn(p, argv, &io, &pid, &st);
	close(ep[1]);
	close(nul);
	free(argv);
	if (rc == 0 && st.result != LAUNCH_RUNNING) {
		waitpid(pid, NULL, 0);
		*err = st.setup;
		rc = -st.setup.err;
	} else if (rc == 0) {
		len = read_until(ep[0], text, sizeof(text), PREFLIGHT_MS, &timed_out);
		text[len] = '\0';
		if (timed_out)
			kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = timed_out ? seatbelt_fail(err, "seatbelt", NULL, ETIMEDOUT,
					       "sandbox-exec did not finish its preflight")
			       : preflight_judge(status, text, absent, err);
	} else {
		*err = st.setup;
	}
	close(ep[0]);
	return rc;
}

int seatbelt_run_captured(const struct plan *p, char **argv, int ms, char *out, size_t cap,
			  int *status, bool *timed_out, struct setup_error *err)
{
	struct launch_status st;
	struct launch_stdio io;
	int op[2], nul, rc;
	size_t len = 0;
	pid_t pid;

	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0 || fdpipe_local(op) < 0) {
		rc = seatbelt_fail(err, "canary", NULL, errno, NULL);
		if (nul >= 0)
			close(nul);
		return rc;
	}
	io = (struct launch_stdio){nul, op[1], nul};
	memset(&st, 0, sizeof(st));
	rc = spawn(p, argv, &io, &pid, &st);
	close(op[1]);
	close(nul);
	if (rc == 0 && st.result != LAUNCH_RUNNING) {
		waitpid(pid, NULL, 0);
		*err = st.setup;
		rc = -st.setup.err;
	} else if (rc == 0) {
		len = read_until(op[0], out, cap, ms, timed_out);
		if (*timed_out)
			kill(-pid, SIGKILL);
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	} else {
		*err = st.setup;
	}
	out[len] = '\0';
	close(op[0]);
	return rc;
}

/* The command was not found or not executable: nothing of it starts; a
 * child that exits at once stands for it (the core reaps one process). */
static int launch_exec_failed(struct launch *l, struct launch_status *st)
{
	l->pid = fork();
	if (l->pid < 0)
		return seatbelt_fail(&st->setup, "fork", NULL, errno, NULL);
	if (l->pid == 0)
		_exit(127);
	l->pgid = 0;
	st->result = LAUNCH_EXEC_FAILED;
	st->exec_errno = l->plan->exe_errno;
	return 0;
}

int platform_launch(struct plan *plan, const struct launch_stdio *io, struct launch **out,
		    struct launch_status *st)
{
	struct launch *l;
	int rc;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	rc = seatbelt_preflight(plan, &st->setup);
	/* The canary only before a command that will run (an absent one
	 * runs nothing under the profile). */
	if (rc == 0 && plan->exe)
		rc = seatbelt_canary(plan, &st->setup);
	if (rc < 0) {
		st->result = LAUNCH_SETUP_FAILED;
		return rc;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return seatbelt_fail(&st->setup, "launch", NULL, ENOMEM, NULL);
	l->plan = plan;
	plan->started = time(NULL);
	rc = plan->exe ? spawn(plan, plan->argv.v, io, &l->pid, st)
		       : launch_exec_failed(l, st);
	if (rc < 0) {
		free(l);
		return rc;
	}
	if (plan->exe)
		l->pgid = l->pid; /* setsid: the leader of its own group */
	*out = l;
	return 0;
}

pid_t platform_pid(const struct launch *l)
{
	return l ? l->pid : -1;
}

int platform_status(struct launch *l, int raw_status)
{
	(void)l;
	return raw_status; /* sandbox-exec became the command: its status is the command's */
}

int platform_kill_tree(struct launch *l)
{
	if (!l || l->pgid <= 0)
		return 0;
	if (kill(-l->pgid, SIGKILL) < 0 && errno != ESRCH)
		return -errno;
	return 0;
}

int platform_pollfds(struct launch *l, struct pollfd *fds, int max)
{
	(void)l;
	(void)fds;
	(void)max;
	return 0; /* nothing to watch while it runs: Seatbelt answers in the kernel */
}

int platform_service(struct launch *l, const struct pollfd *fds, int n, struct denials *d)
{
	(void)l;
	(void)fds;
	(void)n;
	(void)d;
	return 0;
}

void platform_limits_observe(struct launch *l, struct limit_report *r)
{
	(void)l;
	memset(r, 0, sizeof(*r));
	r->killed_by = -1; /* no kernel counter to read (LIM-7): nothing claimed */
}

/* Denials are read after the run from the unified log (best effort);
 * when it cannot be read, enforcement.denials_reported stays false and
 * no denial is guessed from output.  A Seatbelt denial does not stop the
 * run (the operation fails with EPERM): never enforcement_denied here.
 * A per-run private temp directory goes now (the runtime root's tmp/ is
 * the root's, and stays). */
int platform_release(struct launch *l, struct denials *d)
{
	struct plan *p;

	if (!l)
		return 0;
	p = l->plan;
	if (p->exe && unilog_denials(p->tag, p->started, d) == 0)
		p->enf.denials_logged = true;
	/* the per-run directory goes; the runtime root's tmp/ stays (RT-3) */
	if (p->tmpdir && !p->tmpdir_borrowed) {
		canon_tree_remove(p->tmpdir);
		free(p->tmpdir);
		p->tmpdir = NULL;
	}
	free(l);
	return 0;
}
