/* sess.c - see sess.h. */
#include "sess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The worker's standard descriptors: pipes, or a pseudo-terminal whose
 * slave is opened O_NOCTTY (it never becomes the server's controlling
 * terminal; the command runs in a session of its own, PRIV-4).  child[]
 * are the worker's 0, 1, 2; *out and *in the server's ends. */
static int stdio_open(bool tty, int child[3], int *out, int *in, const char **why)
{
	int p_in[2], p_out[2];

	if (tty) {
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), sl;

		*why = "pty";
		if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
		    (sl = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
			int e = errno;

			if (m >= 0)
				close(m);
			return -e;
		}
		*out = m;
		*in = fcntl(m, F_DUPFD_CLOEXEC, 0);
		child[0] = sl;
		child[1] = fcntl(sl, F_DUPFD_CLOEXEC, 0);
		child[2] = fcntl(sl, F_DUPFD_CLOEXEC, 0);
		return *in < 0 || child[1] < 0 || child[2] < 0 ? -errno : 0;
	}
	*why = "pipes";
	if (pipe2(p_in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(p_out, O_CLOEXEC) < 0) {
		int e = errno;

		close(p_in[0]);
		close(p_in[1]);
		return -e;
	}
	*out = p_out[0];
	*in = p_in[1];
	child[0] = p_in[0];
	child[1] = p_out[1];
	child[2] = fcntl(p_out[1], F_DUPFD_CLOEXEC, 0); /* stdout and stderr: one stream */
	return child[2] < 0 ? -errno : 0;
}

/* In the forked child: descriptors 0..4 in place (the only ones the
 * worker inherits: every other descriptor of the server, the copies made
 * here included, is close-on-exec), a session of its own, death with the
 * server, then the worker.  Never returns. */
static void worker_exec(const int fds[5], pid_t server)
{
	int hi[5];

	/* Above 4 first, so no dup2 below overwrites a source still needed. */
	for (int i = 0; i < 5; i++)
		hi[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
	for (int i = 0; i < 5; i++)
		if (hi[i] < 0 || dup2(hi[i], i) < 0) /* dup2: i is not close-on-exec */
			_exit(127);
	for (int i = 0; i < 5; i++)
		close(hi[i]);
	setsid();
	/* SIGTERM: the worker cancels its run and kills its tree (PROC-4).
	 * Checked after it is set: a server that died before has left us
	 * to another parent, and no signal would ever come (SESS-5). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != server)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execl("/proc/self/exe", "sandproof-ref", "__session-worker", (char *)NULL);
	_exit(127);
}

static int memfd_with(const char *name, const char *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(fd);
			return -e;
		}
		off += (size_t)n;
	}
	return fd;
}

static int spawn(struct sess *s, int child[3], int reqfd, const char **why)
{
	int fds[5] = {child[0], child[1], child[2], reqfd, s->outcome_fd};
	pid_t server = getpid(), pid;

	/* SIGTERM, SIGINT, SIGHUP are blocked from before the fork until the
	 * worker's run has its handlers (run.c unblocks them then, and a
	 * pending one cancels the run, PROC-4): an interrupt sent while the
	 * worker starts would otherwise run our own handler in the child, or
	 * kill the worker, and the session would end with no outcome. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	*why = "fork";
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0)
		worker_exec(fds, server);
	int fork_errno = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -fork_errno;
	s->pid = pid;
	/* Taken while the worker is our unreaped child: the pid cannot name
	 * another process yet, so the pidfd is the worker's for good. */
	s->pidfd = pidfd_open_(pid);
	if (s->pidfd < 0) {
		int e = errno;

		kill(pid, SIGKILL); /* still our unreaped child: safe */
		waitpid(pid, NULL, 0);
		*why = "pidfd_open";
		return -e;
	}
	return 0;
}

int sess_start(struct sess *s, uint64_t id, const char *req, size_t len,
	       bool tty, size_t ring_cap, int64_t now, const char **why)
{
	int child[3] = {-1, -1, -1}, reqfd, rc;

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->tty = tty;
	s->pidfd = s->out_fd = s->in_fd = s->outcome_fd = -1;
	s->started_ms = s->touched_ms = now;
	s->drain_deadline = s->kill_deadline = -1;
	s->ring.cap = ring_cap;
	s->ring.buf = malloc(ring_cap); /* untouched pages: resident as filled */
	*why = "memory";
	if (!s->ring.buf)
		return -ENOMEM;
	*why = "memfd";
	reqfd = memfd_with("sandproof-request", req, len);
	if (reqfd < 0) {
		sess_free(s);
		return reqfd;
	}
	s->outcome_fd = memfd_with("sandproof-outcome", "", 0);
	rc = s->outcome_fd < 0 ? s->outcome_fd : stdio_open(tty, child, &s->out_fd, &s->in_fd, why);
	if (rc == 0)
		rc = spawn(s, child, reqfd, why);
	for (int i = 0; i < 3; i++)
		close_fd(&child[i]);
	close(reqfd);
	if (rc < 0) {
		sess_free(s);
		return rc;
	}
	fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void read_output(struct sess *s, int64_t now)
{
	char buf[65536];

	/* Bounded per wake-up, so one flooding session cannot starve the loop. */
	for (int i = 0; i < 16 && s->out_fd >= 0; i++) {
		ssize_t n = read(s->out_fd, buf, sizeof(buf));

		if (n > 0) {
			sess_ring_put(&s->ring, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		close_fd(&s->out_fd); /* EOF, or EIO: the pty's last slave closed */
	}
	(void)now;
}

static void write_input(struct sess *s)
{
	while (s->in_fd >= 0 && s->pend_off < s->pend_len) {
		ssize_t n = write(s->in_fd, s->pend + s->pend_off, s->pend_len - s->pend_off);

		if (n > 0) {
			s->pend_off += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		close_fd(&s->in_fd); /* the command stopped reading */
	}
	free(s->pend);
	s->pend = NULL;
	s->pend_len = s->pend_off = 0;
	if (s->close_after)
		close_fd(&s->in_fd);
}

/* The worker's outcome, at most SESS_OUTCOME_MAX bytes, its newline cut. */
static void read_outcome(struct sess *s)
{
	struct stat st;
	size_t len;

	if (fstat(s->outcome_fd, &st) < 0 || st.st_size <= 0 ||
	    (size_t)st.st_size > SESS_OUTCOME_MAX)
		return; /* no outcome: the response says so (outcome null) */
	len = (size_t)st.st_size;
	s->outcome = malloc(len + 1);
	if (!s->outcome || pread(s->outcome_fd, s->outcome, len, 0) != (ssize_t)len) {
		free(s->outcome);
		s->outcome = NULL;
		return;
	}
	while (len && (s->outcome[len - 1] == '\n' || s->outcome[len - 1] == '\r'))
		len--;
	s->outcome[len] = '\0';
	s->outcome_len = len;
}

static void reap(struct sess *s, int64_t now)
{
	int st;

	if (s->reaped || waitpid(s->pid, &st, WNOHANG) != s->pid)
		return;
	s->reaped = true; /* from here on the pidfd is the only name, and dead */
	s->kill_deadline = -1;
	read_outcome(s);
	close_fd(&s->outcome_fd);
	close_fd(&s->in_fd);
	free(s->pend);
	s->pend = NULL;
	s->pend_len = s->pend_off = 0;
	s->drain_deadline = now + SESS_DRAIN_MS;
}

void sess_service(struct sess *s, short out_ev, short in_ev, short pid_ev, int64_t now)
{
	if (out_ev)
		read_output(s, now);
	if (in_ev)
		write_input(s);
	if (pid_ev || (!s->reaped && s->kill_deadline >= 0))
		reap(s, now);
	if (!s->reaped && s->kill_deadline >= 0 && now >= s->kill_deadline) {
		pidfd_signal(s->pidfd, SIGKILL);
		s->kill_deadline = -1;
	}
	if (s->reaped && s->out_fd >= 0 && now >= s->drain_deadline)
		close_fd(&s->out_fd); /* a writer outside the tree: stop waiting */
	if (s->reaped && s->out_fd < 0 && !s->exited) {
		s->exited = true;
		s->exited_ms = now;
	}
}

/* Append a[0..na) and b[0..nb) to the pending input: the unwritten rest
 * moved to the front, then grown in place (the backlog is never held
 * twice).  0, or -ENOMEM with nothing appended. */
static int pend_append(struct sess *s, const char *a, size_t na, const char *b, size_t nb)
{
	size_t rest = s->pend_len - s->pend_off;
	char *p;

	if (!na && !nb)
		return 0;
	if (s->pend_off)
		memmove(s->pend, s->pend + s->pend_off, rest);
	s->pend_len = rest;
	s->pend_off = 0;
	p = realloc(s->pend, rest + na + nb);
	if (!p)
		return -ENOMEM;
	if (na)
		memcpy(p + rest, a, na);
	if (nb)
		memcpy(p + rest + na, b, nb);
	s->pend = p;
	s->pend_len = rest + na + nb;
	return 0;
}

/* End of input on a terminal: a pseudo-terminal has no end of its own, the
 * line discipline makes one of its VEOF character (^D unless the command
 * changed it) at the start of a line (termios(3), canonical mode).  So
 * VEOF once when the input so far ends a line, twice after a partial line
 * (the first hands the partial line over, the second is the end).  The
 * terminal stays open: later input reaches the command as a user's typing
 * would.  In non-canonical mode the command reads VEOF as a byte. */
static int tty_eof(const struct sess *s, bool partial, char eofc[2], size_t *n)
{
	struct termios t;

	if (tcgetattr(s->in_fd, &t) < 0)
		return -errno;
	if (t.c_cc[VEOF] == _POSIX_VDISABLE)
		return -ENOTTY; /* no end-of-file character: none can be sent */
	eofc[0] = eofc[1] = (char)t.c_cc[VEOF];
	*n = partial ? 2 : 1;
	return 0;
}

int sess_input(struct sess *s, const char *data, size_t len, bool eof)
{
	/* A line ends at NL, or CR (ICRNL, a terminal's default). */
	bool partial = len ? data[len - 1] != '\n' && data[len - 1] != '\r' : s->tty_partial;
	char eofc[2];
	size_t ne = 0;
	int rc;

	if (s->reaped || s->in_fd < 0 || s->close_after)
		return -EPIPE;
	if (eof && s->tty && (rc = tty_eof(s, partial, eofc, &ne)) < 0)
		return rc;
	if (sess_pending(s) + len + ne > SESS_INPUT_MAX)
		return -ENOBUFS;
	if ((rc = pend_append(s, data, len, eofc, ne)) < 0)
		return rc;
	s->tty_partial = partial && !ne;
	s->close_after = eof && !s->tty;
	write_input(s);
	return 0;
}

size_t sess_pending(const struct sess *s)
{
	return s->pend_len - s->pend_off;
}

void sess_interrupt(struct sess *s, int64_t now)
{
	s->interrupted = true;
	if (s->reaped || s->kill_deadline >= 0)
		return;
	/* Through the pidfd: if the worker was reaped meanwhile this is ESRCH,
	 * never a signal to whatever holds its old pid now. */
	pidfd_signal(s->pidfd, SIGTERM);
	s->kill_deadline = now + SESS_KILL_MS;
}

int64_t sess_deadline(const struct sess *s)
{
	if (!s->reaped && s->kill_deadline >= 0)
		return s->kill_deadline;
	if (s->reaped && s->out_fd >= 0)
		return s->drain_deadline;
	return -1;
}

void sess_free(struct sess *s)
{
	if (s->pid > 0 && !s->reaped) {
		pidfd_signal(s->pidfd, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	close_fd(&s->pidfd);
	close_fd(&s->out_fd);
	close_fd(&s->in_fd);
	close_fd(&s->outcome_fd);
	free(s->ring.buf);
	free(s->pend);
	free(s->outcome);
	memset(s, 0, sizeof(*s));
	s->pidfd = s->out_fd = s->in_fd = s->outcome_fd = -1;
}
