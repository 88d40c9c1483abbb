/* run.c - the supervisor of one run (see run.h).
 *
 * Single-threaded: one poll() loop over the command's output pipes, its
 * stdin pipe, a self-pipe carrying signals, and whatever descriptors the
 * platform adds (seccomp notifications, the protected-create monitor).
 * The loop ends only when the command's process was reaped AND both output
 * pipes reached EOF (or the short drain window after the tree was killed
 * expired), so no output written before the end is lost. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpipe.h"
#include "rtroot.h"

/* After the tree was killed, a pipe can only stay open if its write end was
 * passed to a process outside the tree; give up on it after this long. */
#define RUN_DRAIN_MS 2000

static int sig_wfd = -1;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (sig_wfd >= 0 && write(sig_wfd, &b, 1) < 0) {
		/* pipe full: a signal is already pending there */
	}
	errno = saved;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct sup {
	struct launch *l;
	pid_t pid;
	int sig_rfd;
	struct outcome *o;
	int in_fd;
	const char *in_data;
	size_t in_len, in_off;
	int64_t deadline;       /* -1: none */
	int64_t drain_deadline; /* -1: not draining yet */
	bool killed, timed_out, denied;
	int cancel_sig;
};

static void reap(struct sup *s)
{
	int st;
	pid_t p;

	/* Reap everything that is ours: the command's process, and orphans the
	 * platform made us adopt.  The command's pid is never used again after
	 * this (PROC-5: a reaped process is never signalled). */
	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p != s->pid)
			continue;
		st = platform_status(s->l, st);
		s->o->has_status = true;
		if (WIFSIGNALED(st))
			s->o->signal = WTERMSIG(st);
		else
			s->o->exit_code = WEXITSTATUS(st);
		s->pid = -1;
	}
}

static void kill_tree(struct sup *s)
{
	if (s->killed)
		return;
	s->killed = true;
	platform_kill_tree(s->l);
	s->drain_deadline = now_ms() + RUN_DRAIN_MS;
}

static void feed_stdin(struct sup *s)
{
	ssize_t n = write(s->in_fd, s->in_data + s->in_off, s->in_len - s->in_off);

	if (n > 0)
		s->in_off += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || s->in_off >= s->in_len) {
		close(s->in_fd); /* EOF for the command, or it stopped reading */
		s->in_fd = -1;
	}
}

static void on_signals(struct sup *s)
{
	unsigned char b[64];
	ssize_t n;

	while ((n = read(s->sig_rfd, b, sizeof(b))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] == SIGCHLD)
				continue;
			if (!s->cancel_sig)
				s->cancel_sig = b[i];
			kill_tree(s);
		}
	}
}

static void supervise(struct sup *s)
{
	struct outcome *o = s->o;

	for (;;) {
		struct pollfd pf[16];
		int n = 0, timeout = -1, i_sig, i_out = -1, i_err = -1, i_in = -1, i_ch = -1, np;
		int ch_fd = changes_pollfd(&o->changes);
		int64_t now = now_ms(), until = -1;

		reap(s);
		if (s->pid < 0 && !s->killed)
			kill_tree(s); /* the command's end is the run's end */
		if (s->drain_deadline >= 0 && now >= s->drain_deadline) {
			capture_close(&o->out); /* unreachable writer: stop waiting */
			capture_close(&o->err);
		}
		if (s->pid < 0 && o->out.fd < 0 && o->err.fd < 0)
			return;
		if (s->deadline >= 0 && now >= s->deadline && !s->killed) {
			s->timed_out = true;
			kill_tree(s);
		}
		if (s->deadline >= 0 && !s->killed)
			until = s->deadline;
		if (s->drain_deadline >= 0)
			until = s->drain_deadline;
		if (until >= 0)
			timeout = until > now ? (int)(until - now) : 0;

		i_sig = n;
		pf[n++] = (struct pollfd){.fd = s->sig_rfd, .events = POLLIN};
		if (o->out.fd >= 0) {
			i_out = n;
			pf[n++] = (struct pollfd){.fd = o->out.fd, .events = POLLIN};
		}
		if (o->err.fd >= 0) {
			i_err = n;
			pf[n++] = (struct pollfd){.fd = o->err.fd, .events = POLLIN};
		}
		if (s->in_fd >= 0) {
			i_in = n;
			pf[n++] = (struct pollfd){.fd = s->in_fd, .events = POLLOUT};
		}
		if (ch_fd >= 0) {
			/* the change report's events, drained as they come (OUT-8) */
			i_ch = n;
			pf[n++] = (struct pollfd){.fd = ch_fd, .events = POLLIN};
		}
		np = s->killed ? 0 : platform_pollfds(s->l, pf + n, 16 - n);
		if (poll(pf, (nfds_t)(n + np), timeout) < 0) {
			if (errno == EINTR)
				continue;
			kill_tree(s); /* cannot supervise: stop the command */
			continue;
		}
		if (pf[i_sig].revents)
			on_signals(s);
		if (i_out >= 0 && pf[i_out].revents)
			while (capture_drain(&o->out) == 1)
				;
		if (i_err >= 0 && pf[i_err].revents)
			while (capture_drain(&o->err) == 1)
				;
		if (i_in >= 0 && pf[i_in].revents)
			feed_stdin(s);
		if (i_ch >= 0 && pf[i_ch].revents)
			changes_service(&o->changes);
		if (np > 0 && platform_service(s->l, pf + n, np, &o->denials) > 0 &&
		    !s->killed) {
			s->denied = true;
			kill_tree(s);
		}
	}
}

struct pipes {
	int in[2], out[2], err[2];
};

static void pipes_close(struct pipes *p)
{
	int *all[] = {&p->in[0], &p->in[1], &p->out[0], &p->out[1],
		      &p->err[0], &p->err[1]};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i] >= 0) {
			close(*all[i]);
			*all[i] = -1;
		}
}

static int pipes_open(struct pipes *p, const struct request *req,
		      const struct run_io *io, struct launch_stdio *st)
{
	memset(p, -1, sizeof(*p));
	*st = (struct launch_stdio){0, 1, 2};
	if (!io->passthrough) {
		int rc = fdpipe_open(p->out, O_CLOEXEC);

		if (rc < 0 || (rc = fdpipe_open(p->err, O_CLOEXEC)) < 0)
			return rc;
		st->out = p->out[1];
		st->err = p->err[1];
		fcntl(p->out[0], F_SETFL, O_NONBLOCK);
		fcntl(p->err[0], F_SETFL, O_NONBLOCK);
	}
	if (io->stdin_inherit)
		return 0;
	if (req->stdin_len == 0) {
		p->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (p->in[0] < 0)
			return -errno;
	} else {
		int rc = fdpipe_open(p->in, O_CLOEXEC);

		if (rc < 0)
			return rc;
	}
	st->in = p->in[0];
	if (p->in[1] >= 0)
		fcntl(p->in[1], F_SETFL, O_NONBLOCK);
	return 0;
}

static void setup_failed(struct outcome *o, const char *step, int err,
			 const char *detail)
{
	o->kind = OK_SANDBOX_SETUP_FAILURE;
	snprintf(o->setup.step, sizeof(o->setup.step), "%s", step);
	o->setup.err = err;
	snprintf(o->setup.detail, sizeof(o->setup.detail), "%s", detail);
}

static void classify(struct outcome *o, const struct sup *s,
		     const struct launch_status *st)
{
	/* A command that never ran has no exit status (OUT-3): what was reaped
	 * is the runner's own helper, stopped by the runner. */
	if (st->result != LAUNCH_RUNNING) {
		o->has_status = false;
		o->signal = 0;
		o->exit_code = 0;
	}
	if (st->result == LAUNCH_SETUP_FAILED) {
		o->kind = OK_SANDBOX_SETUP_FAILURE;
		o->setup = st->setup;
	} else if (s->denied) {
		o->kind = OK_ENFORCEMENT_DENIED;
	} else if (st->result == LAUNCH_EXEC_FAILED) {
		o->exec_errno = st->exec_errno;
		o->kind = (st->exec_errno == ENOENT || st->exec_errno == ENOTDIR)
			? OK_EXECUTABLE_NOT_FOUND : OK_APPLICATION_FAILURE;
	} else if (s->timed_out) {
		o->kind = OK_TIMED_OUT;
	} else if (s->cancel_sig) {
		o->kind = OK_CANCELLED;
		o->cancel_signal = s->cancel_sig;
	} else if (o->limits.killed_by >= 0) {
		o->kind = OK_LIMIT_EXCEEDED; /* observed by the platform (LIM-6) */
	} else if (o->has_status && !o->signal && o->exit_code == 0) {
		o->kind = OK_SUCCESS;
	} else {
		o->kind = OK_APPLICATION_FAILURE;
	}
}

/* The handlers go in, then the four signals are unblocked: a caller that
 * keeps them blocked until the run can handle them (serve's worker, SESS-5:
 * an interrupt that arrives while the worker starts) has a pending one
 * delivered here, into the self-pipe, so it cancels the run like any
 * other (PROC-4) instead of killing the runner with no outcome.
 * signals_restore puts the caller's mask back before its handlers. */
static int signals_install(int fds[2], struct sigaction old[4], sigset_t *oldmask)
{
	static const int sigs[4] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	sigset_t set;
	int rc = fdpipe_open(fds, O_CLOEXEC | O_NONBLOCK);

	if (rc < 0)
		return rc;
	sig_wfd = fds[1];
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (int i = 0; i < 4; i++) {
		sigaction(sigs[i], &sa, &old[i]);
		sigaddset(&set, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_UNBLOCK, &set, oldmask);
	return 0;
}

static void signals_restore(int fds[2], const struct sigaction old[4],
			    const sigset_t *oldmask)
{
	static const int sigs[4] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

	sigprocmask(SIG_SETMASK, oldmask, NULL);
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	sig_wfd = -1;
	close(fds[0]);
	close(fds[1]);
}

/* What one run_execute holds between its steps. */
struct execution {
	struct plan *plan;         /* platform_prepare's, freed at the end */
	struct launch *l;          /* platform_launch's, released by run_supervise */
	struct launch_status st;
	struct launch_stdio lio;   /* the child's stdin/stdout/stderr */
	struct pipes p;            /* our ends and the child's */
	struct sigaction old[4];   /* restored by signals_restore */
	sigset_t oldmask;          /* likewise */
	int sfd[2];                /* the signal self-pipe */
};

/* The run's outcome, empty: no limit hit, streams captured unless io
 * passes them through. */
static void outcome_start(struct outcome *o, const struct request *req,
			  const struct run_io *io)
{
	memset(o, 0, sizeof(*o));
	o->limits.killed_by = -1;
	capture_init(&o->out, -1, req->output_limit_bytes);
	capture_init(&o->err, -1, req->output_limit_bytes);
	o->captured = !io->passthrough;
}

/* Everything before the launch: supervision, the runtime root, the plan,
 * the stdio pipes, the signal pipe.  0; or -1 with o a setup failure, and
 * nothing of the pipes or signals left (the plan and root are released by
 * the caller either way). */
static int run_prepare(struct execution *x, const struct request *req,
		       const struct run_io *io, struct outcome *o)
{
	/* Supervision first: without it a daemonized descendant could
	 * outlive the run, so failing here is a setup failure like any other. */
	int rc = platform_supervisor_init();

	if (rc < 0) {
		setup_failed(o, "subreaper", -rc, "cannot become a child subreaper");
		return -1;
	}
	rc = rtroot_acquire(req, &o->runtime, &o->setup);
	if (rc < 0) {
		o->kind = OK_SANDBOX_SETUP_FAILURE;
		return -1;
	}
	rc = platform_prepare(rtroot_request(req), &x->plan, &o->setup);
	if (rc < 0) {
		o->kind = OK_SANDBOX_SETUP_FAILURE;
		return -1;
	}
	platform_enforcement(x->plan, &o->enf);
	/* The baseline is taken before anything of the command exists, so a
	 * command that ends at once still reports its writes (OUT-8).  An
	 * outcome no one reads needs none: then "changes" stays absent. */
	rc = io->outcome_unread ? 0 : changes_baseline(&o->changes, req);
	if (rc < 0) {
		setup_failed(o, "changes", -rc, "cannot take the write roots' baseline");
		return -1;
	}
	rc = pipes_open(&x->p, req, io, &x->lio);
	if (rc < 0) {
		pipes_close(&x->p);
		setup_failed(o, "pipes", -rc, "cannot create stdio pipes");
		return -1;
	}
	rc = signals_install(x->sfd, x->old, &x->oldmask);
	if (rc < 0) {
		pipes_close(&x->p);
		setup_failed(o, "signals", -rc, "cannot create the signal pipe");
		return -1;
	}
	return 0;
}

/* Launches the plan and closes the child's ends of the pipes.  0; or -1
 * with o a setup failure and our ends and the signal pipe closed too. */
static int run_launch(struct execution *x, struct outcome *o)
{
	struct pipes *p = &x->p;
	int rc = platform_launch(x->plan, &x->lio, &x->l, &x->st);

	platform_enforcement(x->plan, &o->enf); /* launch may learn more (listener) */
	/* The child holds its own copies now; ours would keep EOF away. */
	if (p->in[0] >= 0) close(p->in[0]);
	if (p->out[1] >= 0) close(p->out[1]);
	if (p->err[1] >= 0) close(p->err[1]);
	if (rc < 0) {
		if (p->in[1] >= 0) close(p->in[1]);
		if (p->out[0] >= 0) close(p->out[0]);
		if (p->err[0] >= 0) close(p->err[0]);
		o->kind = OK_SANDBOX_SETUP_FAILURE;
		o->setup = x->st.setup;
		signals_restore(x->sfd, x->old, &x->oldmask);
		return -1;
	}
	return 0;
}

/* Feeds stdin, captures, enforces the deadline until the launch is over,
 * then observes its limits and denials, releases it, restores the signals
 * and classifies the outcome.  t0: the run's start (the deadline's base). */
static void run_supervise(struct execution *x, const struct request *req, int64_t t0,
			  struct outcome *o)
{
	struct sup s = {.deadline = -1, .drain_deadline = -1, .in_fd = -1};

	o->out.fd = x->p.out[0];
	o->err.fd = x->p.err[0];
	s.l = x->l;
	s.pid = platform_pid(x->l);
	s.sig_rfd = x->sfd[0];
	s.o = o;
	s.in_fd = x->p.in[1];
	s.in_data = req->stdin_data;
	s.in_len = req->stdin_len;
	if (req->timeout_ms)
		s.deadline = t0 + (int64_t)req->timeout_ms;
	if (x->st.result != LAUNCH_RUNNING)
		kill_tree(&s); /* nothing of the command runs; collect the helper */
	supervise(&s);
	if (s.in_fd >= 0)
		close(s.in_fd);
	platform_limits_observe(x->l, &o->limits);
	if (platform_release(x->l, &o->denials) > 0)
		s.denied = true;
	/* Release may learn more: denials read from an OS log after the run. */
	platform_enforcement(x->plan, &o->enf);
	signals_restore(x->sfd, x->old, &x->oldmask);
	classify(o, &s, &x->st);
}

int run_execute(const struct request *req, const struct run_io *io,
		struct outcome *o)
{
	struct execution x = {.plan = NULL};
	int64_t t0 = now_ms();

	outcome_start(o, req, io);
	if (run_prepare(&x, req, io, o) == 0 && run_launch(&x, o) == 0) {
		run_supervise(&x, req, t0, o);
		/* After release: what the runner itself undid is not the
		 * command's change.  Out of memory leaves it incomplete. */
		if (changes_compare(&o->changes, req) < 0)
			o->changes.truncated = true;
	} else {
		changes_free(&o->changes); /* nothing ran: "changes" is null */
	}
	rtroot_release();
	platform_plan_free(x.plan);
	o->duration_ms = (uint64_t)(now_ms() - t0);
	return 0;
}

void outcome_free(struct outcome *o)
{
	capture_free(&o->out);
	capture_free(&o->err);
	changes_free(&o->changes);
}
