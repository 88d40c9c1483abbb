/* proc.c - the launcher's parent side (contract in sandproof/proc.h, the
 * parts and how they meet in proc_int.h): proc_run's setup, its one poll
 * loop over the program's pidfd, pipes and notification listener, and the
 * result. */
#include "proc_int.h"
#include "prims_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct proc_buf {
	char *p;
	size_t len, cap, limit;
	bool truncated;
};

int proc_init(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

int proc_die_with_parent(void)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ? -errno : 0;
}

static void proc_buf_take(struct proc_buf *b, const char *data, size_t n)
{
	size_t room = b->limit - b->len;

	if (n > room) {
		b->truncated = true;
		n = room;
	}
	if (!n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > b->limit + 1)
			cap = b->limit + 1;
		p = realloc(b->p, cap);
		if (!p) {
			b->truncated = true; /* keep what we have */
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Read what is there from *fd; at EOF or error close it and set -1. */
static void proc_drain(int *fd, struct proc_buf *b)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n > 0) {
		proc_buf_take(b, chunk, (size_t)n);
		return;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	close(*fd);
	*fd = -1;
}

/* waitid(P_PIDFD) with the kernel's rusage of the program and of every
 * descendant it (or they) reaped: the glibc wrapper has no rusage. */
static int proc_waitid(int pidfd, siginfo_t *si, int flags, struct proc_result *r)
{
	struct rusage ru;
	int rc;

	memset(&ru, 0, sizeof(ru));
	rc = (int)syscall(SYS_waitid, P_PIDFD, (id_t)pidfd, si, flags, &ru);
	if (rc == 0 && si->si_pid) {
		r->maxrss_kib = ru.ru_maxrss;
		r->cpu_ms = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	}
	return rc;
}

static void proc_status(struct proc_result *r, const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED) {
		r->exited = true;
		r->exit_code = si->si_status;
	} else {
		r->term_signal = si->si_status;
	}
}

static int proc_validate(const struct proc_opts *o)
{
	if (!o->argv || !o->argv[0] || (o->stdin_len && !o->stdin_data))
		return -EINVAL;
	if (o->hold_at < 0 || (o->fault_syscall && !*o->fault_syscall))
		return -EINVAL;
	if (o->fault_more_syscalls && o->fault_more_syscalls[0] && !o->fault_syscall)
		return -EINVAL;
	if (o->hold_comm && (!*o->hold_comm || strlen(o->hold_comm) > 15))
		return -EINVAL;
	if (o->n_keep_fds < 0 || o->n_keep_fds > PROC_MAX_KEEP || (o->n_keep_fds && !o->keep_fds))
		return -EINVAL;
	for (int i = 0; i < o->n_keep_fds; i++)
		if (o->keep_fds[i] < 3 || fcntl(o->keep_fds[i], F_GETFD) < 0)
			return -EINVAL;
	return proc_signal_check(o);
}

/* One run: what proc_run set up, and where its poll loop stands. */
struct proc_run {
	const struct proc_opts *o;
	struct proc_filter f;
	bool filtered;
	struct proc_shm *shm;
	struct proc_known *pre;
	size_t npre;
	int in[2], out[2], err[2];
	pid_t pid;
	int pidfd, lfd;   /* lfd: -1 not taken yet, -2 closed (nobody filtered left) */
	bool reaped;
	struct proc_buf bout, berr;
	uint64_t start, deadline, drain_end;
	size_t fed;       /* stdin bytes written */
	struct proc_sigtimer sig;
	bool over;        /* the program is reaped and the loop is done */
	int rc;           /* the first -errno of the loop itself */
};

/* What proc_start hands out: the run and its result so far. */
struct proc_handle {
	struct proc_run s;
	struct proc_result r;
};

static void proc_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The sweeps' scope: with tree_only the program's own tree (its pid as the
 * top ancestor), else 0: every descendant of the caller not in pre. */
static pid_t proc_top(const struct proc_run *s)
{
	return s->o->tree_only ? s->pid : 0;
}

/* The timeout: the program, its process group, and every process of the
 * run (descendants of the program or, without tree_only, of orphans it
 * left) get SIGKILL. */
static void proc_kill_run(struct proc_run *s, struct proc_result *r)
{
	int killed = 0;

	if (!s->reaped && s->o->tree_only) {
		/* The program is stopped first: stopped, it forks nothing, and
		 * (a subreaper) it stays the parent of whatever its tree
		 * orphans, so all of its tree is still below it, in the
		 * sweep's scope, while the sweep kills it; then the program. */
		pidfd_send_signal(s->pidfd, SIGSTOP, NULL, 0);
		proc_sweep(s->pre, s->npre, s->pid, s->pid, true, PROC_KILL_WAIT_MS, &killed);
		r->killed += killed;
		killed = 0;
	}
	if (!s->reaped) {
		/* The unreaped program pins its pid, hence its group id:
		 * the group signal cannot reach a recycled group. */
		kill(-s->pid, SIGKILL);
		if (pidfd_send_signal(s->pidfd, SIGKILL, NULL, 0) == 0)
			r->killed++;
	}
	proc_sweep(s->pre, s->npre, proc_top(s), s->pid, true, PROC_KILL_WAIT_MS, &killed);
	r->killed += killed;
}

/* Copy the child's listener once it is published, and tell the child it
 * may go on.  0 (also while it is not published yet) or -errno. */
static int proc_listener_take(struct proc_run *s)
{
	int l = __atomic_load_n(&s->shm->listener, __ATOMIC_ACQUIRE);

	if (l < 0)
		return 0;
	s->lfd = pidfd_getfd(s->pidfd, l, 0);
	if (s->lfd < 0)
		return -errno;
	__atomic_store_n(&s->shm->taken, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The descriptors the loop waits on now, into p (room for 5), and for how
 * long (*wait, ms).  Returns how many. */
static int proc_poll_fill(const struct proc_run *s, struct pollfd *p, uint64_t now,
			  int *wait)
{
	int np = 0;

	*wait = (int)((s->reaped ? s->drain_end : s->deadline) - now);
	if (!s->reaped && s->f.notify && s->lfd == -1 && *wait > 1)
		*wait = 1; /* the handshake is polled: the child spins */
	if (!s->reaped)
		p[np++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
	if (s->lfd >= 0)
		p[np++] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
	if (s->out[0] >= 0)
		p[np++] = (struct pollfd){.fd = s->out[0], .events = POLLIN};
	if (s->err[0] >= 0)
		p[np++] = (struct pollfd){.fd = s->err[0], .events = POLLIN};
	if (s->in[1] >= 0)
		p[np++] = (struct pollfd){.fd = s->in[1], .events = POLLOUT};
	return np;
}

/* Write what the pipe takes of the rest of stdin; close it when all is in
 * or the program closed its end.  SIGPIPE is blocked around the write: a
 * program that closes its stdin early must not kill the caller; one raised
 * by our write after an EPIPE is consumed before the mask is restored. */
static void proc_stdin_feed(struct proc_run *s)
{
	const struct proc_opts *o = s->o;
	sigset_t pipe_set, old_mask;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_mask);
	n = write(s->in[1], (const char *)o->stdin_data + s->fed, o->stdin_len - s->fed);
	if (!sigismember(&old_mask, SIGPIPE)) {
		struct timespec zero = {0, 0};

		while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
			;
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (n > 0)
		s->fed += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || s->fed == o->stdin_len)
		proc_close(&s->in[1]);
}

/* The program's status, if it ended: then the loop only drains the
 * pipes, for drain_ms at most. */
static void proc_reap_poll(struct proc_run *s, struct proc_result *r)
{
	int drain = s->o->drain_ms > 0 ? s->o->drain_ms : PROC_DRAIN_MS;
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (proc_waitid(s->pidfd, &si, WEXITED | WNOHANG, r) == 0 && si.si_pid) {
		s->reaped = true;
		proc_status(r, &si);
		r->duration_ms = proc_now_ms() - s->start;
		s->drain_end = proc_now_ms() + (uint64_t)drain;
	}
}

/* The program was killed (timeout, a failed loop): SIGKILL ends it
 * promptly (a held call is killable), so this blocking wait is short. */
static void proc_reap_wait(struct proc_run *s, struct proc_result *r)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (proc_waitid(s->pidfd, &si, WEXITED, r) < 0 && errno == EINTR)
		;
	s->reaped = true;
	proc_status(r, &si);
	r->duration_ms = proc_now_ms() - s->start;
}

/* The signal of the options, when due: to the program alone, through its
 * pidfd (the unreaped program pins its pid).  How long the loop may wait
 * before asking again, -1 for no bound. */
static int proc_signal_step(struct proc_run *s, struct proc_result *r, uint64_t now)
{
	int due = proc_sigtimer_due(&s->sig, s->o, now);

	if (due != 0)
		return due;
	proc_sigtimer_sent(&s->sig);
	if (pidfd_send_signal(s->pidfd, s->o->signal_no, NULL, 0) == 0)
		r->signalled = true;
	return -1;
}

/* Handle one ready descriptor.  0, or -errno when the listener failed
 * (the loop goes on: the program still has to end). */
static int proc_dispatch(struct proc_run *s, struct proc_result *r,
			 const struct pollfd *p)
{
	int e;

	if (p->fd == s->lfd) {
		if (!(p->revents & POLLIN)) {
			/* No filtered process is left. */
			close(s->lfd);
			s->lfd = -2;
			return 0;
		}
		e = proc_filter_answer(s->lfd, s->o, &s->f, r);
		return e < 0 && e != -EINTR ? e : 0;
	}
	if (p->fd == s->out[0])
		proc_drain(&s->out[0], &s->bout);
	else if (p->fd == s->err[0])
		proc_drain(&s->err[0], &s->berr);
	else if (p->fd == s->in[1])
		proc_stdin_feed(s);
	else if (p->fd == s->pidfd)
		proc_reap_poll(s, r);
	return 0;
}

/* Advance the run until it is over or until (a proc_now_ms() time) comes;
 * with startup, also until stdin is all written and the listener taken.
 * Returns s->over.  A failure of the loop itself (kept in s->rc) kills the
 * run, as the timeout does. */
static bool proc_advance(struct proc_run *s, struct proc_result *r, uint64_t until,
			 bool startup)
{
	bool polled = false; /* one pass at least: proc_wait(h, 0) takes what is ready */
	int e;

	while (!s->over) {
		struct pollfd p[5];
		uint64_t now = proc_now_ms();
		int np, wait, sig_wait = -1;

		if (!s->reaped && now >= s->deadline) {
			r->timed_out = true;
			proc_kill_run(s, r);
			break;
		}
		if (s->reaped && ((s->out[0] < 0 && s->err[0] < 0) || now >= s->drain_end))
			break;
		if (!s->reaped && s->f.notify && s->lfd == -1 &&
		    (e = proc_listener_take(s)) < 0) {
			s->rc = e;
			proc_kill_run(s, r);
			break;
		}
		if (!s->reaped)
			sig_wait = proc_signal_step(s, r, now);
		if (startup && s->in[1] < 0 && !(s->f.notify && s->lfd == -1))
			return false;
		if (now >= until && polled)
			return false;
		np = proc_poll_fill(s, p, now, &wait);
		if (sig_wait >= 0 && wait > sig_wait)
			wait = sig_wait;
		if (now >= until)
			wait = 0;
		else if ((uint64_t)wait > until - now)
			wait = (int)(until - now);
		polled = true;
		if (poll(p, (nfds_t)np, wait) < 0 && errno != EINTR) {
			s->rc = -errno;
			proc_kill_run(s, r);
			break;
		}
		for (int i = 0; i < np; i++)
			if (p[i].revents && (e = proc_dispatch(s, r, &p[i])) < 0 && !s->rc)
				s->rc = e;
	}
	if (!s->reaped)
		proc_reap_wait(s, r);
	s->over = true;
	return true;
}

/* Everything the run needs before fork: the filter, the shared page, the
 * pipes, and the processes that exist already.  0 or -errno. */
static int proc_prepare(struct proc_run *s)
{
	const struct proc_opts *o = s->o;
	int rc;

	s->f.fault_nr = -1;
	if (o->fault_syscall || (o->hold_syscalls && o->hold_syscalls[0])) {
		if ((rc = proc_filter_build(o, &s->f)) < 0)
			return rc;
		s->filtered = true;
	}
	s->bout.limit = s->berr.limit = o->out_limit ? o->out_limit : PROC_OUT_LIMIT;
	s->shm = mmap(NULL, sizeof(*s->shm), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		return -ENOMEM;
	}
	s->shm->listener = -1;
	if (pipe2(s->in, O_CLOEXEC) < 0 || pipe2(s->out, O_CLOEXEC) < 0 ||
	    (!o->inherit_stderr && pipe2(s->err, O_CLOEXEC) < 0))
		return -errno;
	/* Processes that exist before the run are never the run's to kill. */
	return proc_children(&s->pre, &s->npre);
}

/* Fork the child and hold it by a pidfd.  0 or -errno (no child left). */
static int proc_fork(struct proc_run *s)
{
	struct proc_plan plan = {
		.o = s->o, .f = s->filtered ? &s->f : NULL, .shm = s->shm,
		.parent = getpid(),
		.fds = {s->in[0], s->out[1], s->o->inherit_stderr ? 2 : s->err[1]},
	};
	int rc;

	s->pid = fork();
	if (s->pid == 0)
		proc_child(&plan);
	if (s->pid < 0)
		return -errno;
	proc_close(&s->in[0]);
	proc_close(&s->out[1]);
	proc_close(&s->err[1]);
	/* Our unreaped child: its pid cannot be recycled, so the pidfd names
	 * exactly the program. */
	s->pidfd = pidfd_open(s->pid, 0);
	if (s->pidfd < 0) {
		rc = -errno;
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		return rc;
	}
	fcntl(s->in[1], F_SETFL, O_NONBLOCK);
	fcntl(s->out[0], F_SETFL, O_NONBLOCK);
	if (s->err[0] >= 0)
		fcntl(s->err[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* The processes of the run still alive once the program ended: counted
 * first, so leftovers reports residue even when kill_leftovers then ends
 * it. */
static void proc_leftovers(struct proc_run *s, struct proc_result *r)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int killed = 0;
	int left = proc_sweep(s->pre, s->npre, proc_top(s), 0, false, 0, NULL);

	/* Grace: a process already dying (a pid namespace being torn down
	 * after its runner was killed) is not residue. */
	for (int i = 0; left > 0 && i < PROC_GRACE_MS / 10; i++) {
		nanosleep(&tick, NULL);
		left = proc_sweep(s->pre, s->npre, proc_top(s), 0, false, 0, NULL);
	}
	r->leftovers = left > 0 ? left : 0;
	if (s->o->kill_leftovers && left > 0) {
		proc_sweep(s->pre, s->npre, proc_top(s), 0, true, PROC_KILL_WAIT_MS, &killed);
		r->killed += killed;
		proc_sweep(s->pre, s->npre, proc_top(s), 0, false, 0, NULL);
	}
}

/* Hand the captured output to r and release everything the run held. */
static void proc_finish(struct proc_run *s, struct proc_result *r)
{
	r->out = s->bout.p ? s->bout.p : strdup("");
	r->err = s->berr.p ? s->berr.p : strdup("");
	r->out_len = s->bout.len;
	r->err_len = s->berr.len;
	r->out_truncated = s->bout.truncated;
	r->err_truncated = s->berr.truncated;
	for (int i = 0; i < 2; i++) {
		proc_close(&s->in[i]);
		proc_close(&s->out[i]);
		proc_close(&s->err[i]);
	}
	proc_close(&s->pidfd);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->shm)
		munmap(s->shm, sizeof(*s->shm));
	free(s->pre);
	free(s->f.prog.filter);
}

int proc_start(const struct proc_opts *o, struct proc_handle **hp)
{
	struct proc_handle *h;
	struct proc_run *s;
	int rc;

	if (!hp)
		return -EINVAL;
	*hp = NULL;
	if (!o)
		return -EINVAL;
	if (o->hold_path)
		return -EOPNOTSUPP; /* a hold of a path's opens is Windows's */
	if ((rc = proc_validate(o)) < 0)
		return rc;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	s = &h->s;
	*s = (struct proc_run){.o = o, .pidfd = -1, .lfd = -1,
			       .in = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}};
	rc = proc_prepare(s);
	if (rc == 0)
		rc = proc_fork(s);
	if (rc < 0) {
		proc_finish(s, &h->r);
		proc_result_free(&h->r);
		free(h);
		return rc;
	}
	h->r.pid = s->pid;
	s->start = proc_now_ms();
	s->deadline = s->start + (uint64_t)(o->timeout_ms > 0 ? o->timeout_ms : PROC_TIMEOUT_MS);
	proc_sigtimer_start(&s->sig, o, s->start);
	if (o->stdin_len == 0)
		proc_close(&s->in[1]);
	proc_advance(s, &h->r, UINT64_MAX, true);
	*hp = h;
	return 0;
}

int proc_wait(struct proc_handle *h, int wait_ms)
{
	uint64_t until = wait_ms < 0 ? UINT64_MAX : proc_now_ms() + (uint64_t)wait_ms;

	return proc_advance(&h->s, &h->r, until, false) ? 1 : 0;
}

void proc_kill(struct proc_handle *h)
{
	if (h->s.over)
		return;
	proc_kill_run(&h->s, &h->r);
	if (!h->s.reaped)
		proc_reap_wait(&h->s, &h->r);
	h->s.over = true;
}

int proc_end(struct proc_handle *h, struct proc_result *r)
{
	struct proc_run *s = &h->s;
	int rc;

	proc_kill(h);
	if (s->shm->err) {
		h->r.setup_err = s->shm->err;
		snprintf(h->r.setup_step, sizeof(h->r.setup_step), "%s", s->shm->step);
	}
	proc_leftovers(s, &h->r);
	proc_finish(s, &h->r);
	*r = h->r;
	rc = s->rc;
	free(h);
	return rc;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	struct proc_handle *h;
	int rc;

	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if ((rc = proc_start(o, &h)) < 0) {
		r->out = strdup("");
		r->err = strdup("");
		return rc;
	}
	proc_wait(h, -1);
	return proc_end(h, r);
}
