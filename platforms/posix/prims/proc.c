/* proc.c - proc.h on the posix bring-up platform (and on macOS, which
 * compiles this file too): a plain launch, the one
 * primitive every harness needs (to start a runner under test at all),
 * in portable POSIX calls; everything else proc.h offers is refused.
 *
 * What a plain launch keeps of proc.h's contract: a new session, stdin
 * fed then closed, stdout and stderr captured within out_limit each (the
 * rest read and dropped), the timeout, and the tree kill - the session's
 * process group, which is all a POSIX system lets a parent name (a
 * process that leaves the group escapes it; a port with a process table
 * or a subreaper does better).  leftovers is 1 when some process of the
 * group outlived the program (POSIX gives no count), maxrss_kib and
 * cpu_ms are not measured (0).
 *
 * Refused with -EOPNOTSUPP before anything starts (prims_lacks says why):
 * a hold or fault filter, a user or network namespace, private mounts. */
#include "sandproof/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct pbuf {
	char *p;
	size_t len, limit;
	bool truncated;
};

struct prun {
	const struct proc_opts *o;
	pid_t pid;
	int in, out, err, rep;  /* our ends: stdin, stdout, stderr, exec report */
	size_t fed;
	struct pbuf bo, be;
};

int proc_init(void)
{
	return -EOPNOTSUPP; /* no child subreaper on a plain POSIX system */
}

int proc_die_with_parent(void)
{
	return -EOPNOTSUPP; /* no parent-death signal on a plain POSIX system */
}

int proc_kill_descendants(int wait_ms)
{
	(void)wait_ms;
	return -EOPNOTSUPP; /* no process table to find them in */
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int pipe_cloexec(int p[2])
{
	if (pipe(p) < 0)
		return -errno;
	for (int i = 0; i < 2; i++)
		if (fcntl(p[i], F_SETFD, FD_CLOEXEC) < 0) {
			int e = errno;

			close(p[0]);
			close(p[1]);
			return -e;
		}
	return 0;
}

/* Read what is there from *fd into b (bounded); at EOF close it. */
static void take(int *fd, struct pbuf *b)
{
	char chunk[16384];
	ssize_t n = read(*fd, chunk, sizeof(chunk));
	size_t keep;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	keep = (size_t)n < b->limit - b->len ? (size_t)n : b->limit - b->len;
	b->truncated |= keep < (size_t)n;
	memcpy(b->p + b->len, chunk, keep);
	b->len += keep;
	b->p[b->len] = '\0';
}

/* The child: its stdio, a session, the working directory, then exec.  A
 * failure is written to the report pipe as errno and step. */
static void child(const struct prun *s, int in, int out, int err, int rep)
{
	const char *step = "stdio";
	int e;

	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail;
	step = "setsid";
	if (setsid() < 0)
		goto fail;
	step = "chdir";
	if (s->o->cwd && chdir(s->o->cwd) < 0)
		goto fail;
	step = "exec";
	if (s->o->envp)
		environ = (char **)s->o->envp;
	signal(SIGPIPE, SIG_DFL);
	execvp(s->o->argv[0], s->o->argv);
fail:
	e = errno;
	if (write(rep, &e, sizeof(e)) == (ssize_t)sizeof(e))
		(void)!write(rep, step, strlen(step));
	_exit(127);
}

static int start(struct prun *s)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1};
	int rc = pipe_cloexec(in);

	if (rc == 0)
		rc = pipe_cloexec(out);
	if (rc == 0)
		rc = pipe_cloexec(err);
	if (rc == 0)
		rc = pipe_cloexec(rep);
	if (rc == 0 && (s->pid = fork()) < 0)
		rc = -errno;
	if (rc == 0 && s->pid == 0)
		child(s, in[0], out[1], err[1], rep[1]);
	s->in = in[1], s->out = out[0], s->err = err[0], s->rep = rep[0];
	for (int *fd = (int[]){in[0], out[1], err[1], rep[1]}, i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (s->in >= 0)
		fcntl(s->in, F_SETFL, O_NONBLOCK);
	if (s->in >= 0 && s->o->stdin_len == 0) {
		close(s->in);
		s->in = -1;
	}
	return rc;
}

static void feed(struct prun *s)
{
	ssize_t n = write(s->in, (const char *)s->o->stdin_data + s->fed,
			  s->o->stdin_len - s->fed);

	if (n > 0)
		s->fed += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || s->fed == s->o->stdin_len) {
		close(s->in);
		s->in = -1;
	}
}

/* Poll the pipes until the program exits (its zombie keeps its pid and
 * its group's id reserved: kills by group stay safe) or the timeout. */
static void supervise(struct prun *s, struct proc_result *r, uint64_t t0)
{
	int timeout = s->o->timeout_ms > 0 ? s->o->timeout_ms : PROC_TIMEOUT_MS;
	siginfo_t si;

	for (;;) {
		struct pollfd p[3] = {{s->out, POLLIN, 0}, {s->err, POLLIN, 0},
				      {s->in, POLLOUT, 0}};

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, s->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			return;
		if (now_ms() - t0 >= (uint64_t)timeout) {
			r->timed_out = true;
			kill(-s->pid, SIGKILL);
			kill(s->pid, SIGKILL);
			r->killed++;
			return;
		}
		if (poll(p, 3, 20) <= 0)
			continue;
		if (p[0].revents)
			take(&s->out, &s->bo);
		if (p[1].revents)
			take(&s->err, &s->be);
		if (p[2].revents)
			feed(s);
	}
}

static void finish(struct prun *s, struct proc_result *r, uint64_t t0)
{
	int drain = s->o->drain_ms > 0 ? s->o->drain_ms : PROC_DRAIN_MS;
	uint64_t end = now_ms() + (uint64_t)drain;
	int st = 0, e = 0;
	ssize_t n;

	if (!r->timed_out && kill(-s->pid, 0) == 0) {
		r->leftovers = 1; /* at least one process of the group lives on */
		if (s->o->kill_leftovers && kill(-s->pid, SIGKILL) == 0)
			r->killed++;
	}
	while ((s->out >= 0 || s->err >= 0) && now_ms() < end) {
		struct pollfd p[2] = {{s->out, POLLIN, 0}, {s->err, POLLIN, 0}};

		if (poll(p, 2, (int)(end - now_ms())) <= 0)
			break;
		if (p[0].revents)
			take(&s->out, &s->bo);
		if (p[1].revents)
			take(&s->err, &s->be);
	}
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	r->duration_ms = now_ms() - t0;
	r->exited = WIFEXITED(st);
	r->exit_code = r->exited ? WEXITSTATUS(st) : 0;
	r->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if ((n = read(s->rep, &e, sizeof(e))) == (ssize_t)sizeof(e)) {
		r->setup_err = e;
		n = read(s->rep, r->setup_step, sizeof(r->setup_step) - 1);
		r->setup_step[n > 0 ? n : 0] = '\0';
	}
}

static bool refused(const struct proc_opts *o)
{
	return o->userns_fd >= 0 || o->netns_fd >= 0 || o->private_mounts ||
	       o->fault_syscall || o->hold_syscalls;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	size_t limit = o && o->out_limit ? o->out_limit : PROC_OUT_LIMIT;
	struct prun s = {.o = o, .pid = -1, .in = -1, .out = -1, .err = -1, .rep = -1,
			 .bo = {.limit = limit}, .be = {.limit = limit}};
	uint64_t t0 = now_ms();
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	int rc;

	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (!o || !o->argv || !o->argv[0] || (o->stdin_len && !o->stdin_data))
		return -EINVAL;
	if (refused(o))
		return -EOPNOTSUPP;
	s.bo.p = calloc(1, limit + 1);
	s.be.p = calloc(1, limit + 1);
	/* A program that closes its stdin early must turn our write into
	 * EPIPE, not kill the harness; the child restores the default. */
	sigaction(SIGPIPE, &ign, &old);
	rc = s.bo.p && s.be.p ? start(&s) : -ENOMEM;
	if (rc == 0) {
		supervise(&s, r, t0);
		finish(&s, r, t0);
	}
	sigaction(SIGPIPE, &old, NULL);
	for (int *fd = (int[]){s.in, s.out, s.err, s.rep}, i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	r->out = s.bo.p, r->out_len = s.bo.len, r->out_truncated = s.bo.truncated;
	r->err = s.be.p, r->err_len = s.be.len, r->err_truncated = s.be.truncated;
	return rc;
}
