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
		child[1] = dup(sl);
		child[2] = dup(sl);
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
	child[2] = dup(p_out[1]); /* stdout and stderr: one ordered stream */
	return child[2] < 0 ? -errno : 0;
}

/* In the forked child: descriptors 0..4 in place, a session of its own,
 * death with the server, then the worker.  Never returns. */
static void worker_exec(const int fds[5], pid_t server)
{
	int hi[5];

	for (int i = 0; i < 5; i++)
		hi[i] = fcntl(fds[i], F_DUPFD, 10);
	for (int i = 0; i < 5; i++)
		if (hi[i] < 0 || dup2(hi[i], i) < 0)
			_exit(127);
	setsid();
	/* SIGTERM: the worker cancels its run and kills its tree (PROC-4). */
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

/* Append n bytes to the ring, dropping the oldest past its capacity. */
static void ring_put(struct sess_ring *r, const char *p, size_t n)
{
	r->total += n;
	if (!r->buf)
		return; /* a pruned session: read and dropped */
	if (n >= r->cap) {
		r->dropped += r->len + (n - r->cap);
		p += n - r->cap;
		n = r->cap;
		r->start = r->len = 0;
	} else if (r->len + n > r->cap) {
		size_t drop = r->len + n - r->cap;

		r->dropped += drop;
		r->start = (r->start + drop) % r->cap;
		r->len -= drop;
	}
	for (size_t done = 0; done < n;) {
		size_t at = (r->start + r->len) % r->cap;
		size_t k = r->cap - at < n - done ? r->cap - at : n - done;

		memcpy(r->buf + at, p + done, k);
		r->len += k;
		done += k;
	}
}

static void read_output(struct sess *s, int64_t now)
{
	char buf[65536];

	/* Bounded per wake-up, so one flooding session cannot starve the loop. */
	for (int i = 0; i < 16 && s->out_fd >= 0; i++) {
		ssize_t n = read(s->out_fd, buf, sizeof(buf));

		if (n > 0) {
			ring_put(&s->ring, buf, (size_t)n);
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

int sess_input(struct sess *s, const char *data, size_t len, bool eof)
{
	char *p;

	if (s->reaped || s->in_fd < 0 || s->close_after)
		return -EPIPE;
	if (s->pend_len - s->pend_off + len > SESS_INPUT_MAX)
		return -ENOBUFS;
	if (len) {
		p = malloc(s->pend_len - s->pend_off + len);
		if (!p)
			return -ENOMEM;
		if (s->pend)
			memcpy(p, s->pend + s->pend_off, s->pend_len - s->pend_off);
		memcpy(p + s->pend_len - s->pend_off, data, len);
		s->pend_len = s->pend_len - s->pend_off + len;
		s->pend_off = 0;
		free(s->pend);
		s->pend = p;
	}
	s->close_after = eof;
	write_input(s);
	return 0;
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

size_t sess_take(struct sess *s, char *dst, uint64_t *dropped)
{
	struct sess_ring *r = &s->ring;
	size_t n = r->len, first = r->cap - r->start < n ? r->cap - r->start : n;

	memcpy(dst, r->buf + r->start, first);
	memcpy(dst + first, r->buf, n - first);
	*dropped = r->dropped;
	r->start = r->len = 0;
	r->dropped = 0;
	return n;
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
