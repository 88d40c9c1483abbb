/* proc.c - proc.h on the posix bring-up platform (and on macOS, which
 * compiles this file too): a plain launch, the one
 * primitive every harness needs (to start a runner under test at all),
 * in portable POSIX calls; everything else proc.h offers is refused.
 *
 * What a plain launch keeps of proc.h's contract: a new session, stdin
 * fed then closed, stdout and stderr captured within out_limit each (the
 * rest read and dropped), the signal of the program alone (signal_no, by
 * its unreaped pid; looked at every 20 ms at most), the timeout, and the
 * tree kill - the session's process group, which is all a POSIX system
 * lets a parent name (a process that leaves the group escapes it; a port
 * with a process table or a subreaper does better).  leftovers is 1 when some process of the
 * group outlived the program (POSIX gives no count), maxrss_kib and
 * cpu_ms are not measured (0).  proc_start/proc_wait/proc_kill/proc_end
 * are the same launch in slices; inherit_stderr and keep_fds (close-on-exec
 * cleared in the child) are honoured.
 *
 * Refused with -EOPNOTSUPP before anything starts (prims_lacks says why):
 * a hold or fault filter, a user or network namespace, private mounts. */
#include "prims_common.h"
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

/* What proc_start hands out: the run, its result so far, where it stands. */
struct proc_handle {
	struct prun s;
	struct proc_result r;
	uint64_t t0;
	struct proc_sigtimer sig;
	bool over;    /* the program is reaped, its output drained */
	bool killed;  /* proc_kill ended it: nothing of it is a leftover */
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

	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || (err != 2 && dup2(err, 2) < 0))
		goto fail;
	step = "keep fd";
	for (int i = 0; i < s->o->n_keep_fds; i++)
		if (fcntl(s->o->keep_fds[i], F_SETFD, 0) < 0)
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
	if (rc == 0 && !s->o->inherit_stderr)
		rc = pipe_cloexec(err);
	if (rc == 0)
		rc = pipe_cloexec(rep);
	if (rc == 0 && (s->pid = fork()) < 0)
		rc = -errno;
	if (rc == 0 && s->pid == 0)
		child(s, in[0], out[1], s->o->inherit_stderr ? 2 : err[1], rep[1]);
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

/* A program that closes its stdin early must turn our write into EPIPE,
 * not kill the caller: SIGPIPE is ignored around it (the child restores
 * the default). */
static void feed(struct prun *s)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	ssize_t n;

	sigaction(SIGPIPE, &ign, &old);
	n = write(s->in, (const char *)s->o->stdin_data + s->fed, s->o->stdin_len - s->fed);
	sigaction(SIGPIPE, &old, NULL);

	if (n > 0)
		s->fed += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || s->fed == s->o->stdin_len) {
		close(s->in);
		s->in = -1;
	}
}

/* Poll the pipes until the program exits (its zombie keeps its pid and
 * its group's id reserved: kills by group stay safe), the timeout, or
 * until (with startup: also until stdin is all written).  true when the
 * program exited or was killed. */
static bool supervise(struct proc_handle *h, uint64_t until, bool startup)
{
	struct prun *s = &h->s;
	int timeout = s->o->timeout_ms > 0 ? s->o->timeout_ms : PROC_TIMEOUT_MS;
	bool polled = false; /* one pass at least: proc_wait(h, 0) takes what is ready */
	siginfo_t si;

	for (;;) {
		struct pollfd p[3] = {{s->out, POLLIN, 0}, {s->err, POLLIN, 0},
				      {s->in, POLLOUT, 0}};
		uint64_t now = now_ms();

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, s->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			return true;
		if (now - h->t0 >= (uint64_t)timeout) {
			h->r.timed_out = true;
			kill(-s->pid, SIGKILL);
			kill(s->pid, SIGKILL);
			h->r.killed++;
			return true;
		}
		if (proc_sigtimer_due(&h->sig, s->o, now) == 0) {
			/* its zombie would keep the pid ours: it is not reaped yet */
			proc_sigtimer_sent(&h->sig);
			h->r.signalled = kill(s->pid, s->o->signal_no) == 0;
		}
		if ((startup && s->in < 0) || (now >= until && polled))
			return false;
		polled = true;
		if (poll(p, 3, now >= until ? 0 : until - now < 20 ? (int)(until - now) : 20) <= 0)
			continue;
		if (p[0].revents)
			take(&s->out, &s->bo);
		if (p[1].revents)
			take(&s->err, &s->be);
		if (p[2].revents)
			feed(s);
	}
}

static void finish(struct prun *s, struct proc_result *r, uint64_t t0, bool leftovers_known)
{
	int drain = s->o->drain_ms > 0 ? s->o->drain_ms : PROC_DRAIN_MS;
	uint64_t end = now_ms() + (uint64_t)drain;
	int st = 0, e = 0;
	ssize_t n;

	if (!r->timed_out && !leftovers_known && kill(-s->pid, 0) == 0) {
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
	       o->fault_syscall || o->hold_syscalls || o->hold_path;
}

static void release(struct proc_handle *h, struct proc_result *r)
{
	struct prun *s = &h->s;

	for (int *fd = (int[]){s->in, s->out, s->err, s->rep}, i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	*r = h->r;
	r->out = s->bo.p, r->out_len = s->bo.len, r->out_truncated = s->bo.truncated;
	r->err = s->be.p, r->err_len = s->be.len, r->err_truncated = s->be.truncated;
	free(h);
}

int proc_start(const struct proc_opts *o, struct proc_handle **hp)
{
	size_t limit = o && o->out_limit ? o->out_limit : PROC_OUT_LIMIT;
	struct proc_handle *h;
	struct proc_result r;
	int rc;

	if (!hp)
		return -EINVAL;
	*hp = NULL;
	if (!o || !o->argv || !o->argv[0] || (o->stdin_len && !o->stdin_data) ||
	    o->n_keep_fds < 0 || o->n_keep_fds > PROC_MAX_KEEP || (o->n_keep_fds && !o->keep_fds))
		return -EINVAL;
	for (int i = 0; i < o->n_keep_fds; i++)
		if (o->keep_fds[i] < 3 || fcntl(o->keep_fds[i], F_GETFD) < 0)
			return -EINVAL;
	if (proc_signal_check(o) < 0)
		return -EINVAL;
	if (refused(o))
		return -EOPNOTSUPP;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	h->s = (struct prun){.o = o, .pid = -1, .in = -1, .out = -1, .err = -1, .rep = -1,
			     .bo = {.limit = limit}, .be = {.limit = limit}};
	h->t0 = now_ms();
	h->s.bo.p = calloc(1, limit + 1);
	h->s.be.p = calloc(1, limit + 1);
	rc = h->s.bo.p && h->s.be.p ? start(&h->s) : -ENOMEM;
	if (rc < 0) {
		release(h, &r);
		proc_result_free(&r);
		return rc;
	}
	h->r.pid = h->s.pid;
	proc_sigtimer_start(&h->sig, o, h->t0);
	if (supervise(h, UINT64_MAX, true)) {
		finish(&h->s, &h->r, h->t0, false);
		h->over = true;
	}
	*hp = h;
	return 0;
}

int proc_wait(struct proc_handle *h, int wait_ms)
{
	uint64_t until = wait_ms < 0 ? UINT64_MAX : now_ms() + (uint64_t)wait_ms;

	if (!h->over && supervise(h, until, false)) {
		finish(&h->s, &h->r, h->t0, false);
		h->over = true;
	}
	return h->over ? 1 : 0;
}

void proc_kill(struct proc_handle *h)
{
	if (h->over)
		return;
	kill(-h->s.pid, SIGKILL);
	kill(h->s.pid, SIGKILL);
	h->r.killed++;
	finish(&h->s, &h->r, h->t0, true);
	h->over = true;
}

int proc_end(struct proc_handle *h, struct proc_result *r)
{
	proc_kill(h);
	release(h, r);
	return 0;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	struct proc_handle *h;
	int rc;

	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if ((rc = proc_start(o, &h)) < 0)
		return rc;
	proc_wait(h, -1);
	return proc_end(h, r);
}
