/* serve.c - the loop of `sandproof-ref serve` (see serve.h).
 *
 * Single-threaded: one poll() over standard input and output, a signal
 * self-pipe and every session's output, input and pidfd.  Calls are
 * answered one at a time, in order; while a call waits (its yield) every
 * session is still drained, so no command blocks on a full pipe and nothing
 * a call did not ask for is lost except as the ring bounds say (SESS-3).
 * Because calls are serialized, the session a call touches is never pruned
 * or forgotten under it (it is marked busy for the call's length anyway).
 *
 * The caller is watched all the time: while a call waits no line is read,
 * but a hangup of stdin is seen (POLLHUP, POLLRDHUP, POLLERR: the caller
 * closed it), and so is a stdout nobody reads any more (POLLERR, POLLHUP,
 * or a response that cannot be written).  Either ends the server within
 * SERVE_END_MS (SESS-8). */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdpipe.h"
#include "serve_int.h"
#include "sess.h"

static int sig_wfd = -1;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (sig_wfd >= 0 && write(sig_wfd, &b, 1) < 0) {
		/* full: a signal is pending already */
	}
	errno = saved;
}

int64_t serve_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Standard input is ready, or reports a condition (poll's revents). */
static void on_stdin(struct server *sv, short ev)
{
	char buf[65536];
	ssize_t n;

	if (!serve_reading(sv)) {
		/* A call waits: no line may be read, but a hangup is the caller
		 * gone; the lines it sent before are still answered, at once. */
		if (ev & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
			sv->ended = true;
		return;
	}
	n = read(0, buf, sv->line_max + 1 - sv->line_len < sizeof(buf)
		 ? sv->line_max + 1 - sv->line_len : sizeof(buf));
	if (n > 0)
		serve_feed(sv, buf, (size_t)n);
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		sv->in_eof = sv->ended = true; /* EIO: a terminal hung up */
}

/* Poll everything once (at most until `until`, -1: forever) and service
 * what became ready.  Sets sv->gone on a signal or a broken stdout. */
static void poll_once(struct server *sv, int64_t until)
{
	size_t k = 0;
	struct pollfd *pf = calloc(3 + 3 * sv->n, sizeof(*pf));
	int64_t now = serve_now();
	int timeout = until < 0 ? -1 : until > now ? (int)(until - now) : 0;

	if (!pf) {
		sv->gone = true;
		return;
	}
	pf[k++] = (struct pollfd){.fd = sv->sig_rfd, .events = POLLIN};
	pf[k++] = (struct pollfd){.fd = sv->in_eof ? -1 : 0,
		.events = serve_reading(sv) ? POLLIN : POLLRDHUP};
	pf[k++] = (struct pollfd){.fd = 1, .events = 0}; /* POLLERR, POLLHUP only */
	for (size_t i = 0; i < sv->n; i++) {
		struct sess *s = &sv->v[i]->s;

		pf[k++] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
		pf[k++] = (struct pollfd){.fd = s->pend ? s->in_fd : -1, .events = POLLOUT};
		pf[k++] = (struct pollfd){.fd = s->reaped ? -1 : s->pidfd, .events = POLLIN};
	}
	if (poll(pf, k, timeout) < 0 && errno != EINTR) {
		sv->gone = true;
		free(pf);
		return;
	}
	if (pf[0].revents) {
		unsigned char b[64];

		while (read(sv->sig_rfd, b, sizeof(b)) > 0)
			;
		sv->gone = true; /* SIGINT, SIGTERM, SIGHUP: stop everything */
	}
	if (pf[1].revents)
		on_stdin(sv, pf[1].revents);
	if (pf[2].revents)
		sv->gone = true; /* nobody reads the responses any more */
	now = serve_now();
	for (size_t i = 0; i < sv->n; i++)
		sess_service(&sv->v[i]->s, pf[3 + 3 * i].revents, pf[4 + 3 * i].revents,
			     pf[5 + 3 * i].revents, now);
	free(pf);
}

/* The end, whatever caused it: every session stopped (SIGTERM: each worker
 * cancels its run and kills its tree, PROC-4), the workers still there
 * after SERVE_END_MS SIGKILLed (their sandboxes die with them, PROC-10) and
 * every worker reaped.  Nothing more is read or answered. */
static void serve_end(struct server *sv)
{
	int64_t now = serve_now(), end = now + SERVE_END_MS;

	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i]->s.reaped)
			sess_interrupt(&sv->v[i]->s, now);
	for (;;) {
		struct pollfd *pf = calloc(sv->n + 1, sizeof(*pf));
		nfds_t k = 0;

		now = serve_now();
		for (size_t i = 0; pf && i < sv->n; i++)
			if (!sv->v[i]->s.reaped)
				pf[k++] = (struct pollfd){.fd = sv->v[i]->s.pidfd, .events = POLLIN};
		if (pf && k && now < end)
			poll(pf, k, (int)(end - now));
		free(pf);
		if (!pf || !k || now >= end)
			break;
		now = serve_now();
		for (size_t i = 0; i < sv->n; i++)
			if (!sv->v[i]->s.reaped)
				sess_service(&sv->v[i]->s, 0, 0, POLLIN, now);
	}
	serve_free(sv); /* sess_free: SIGKILL through the pidfd, then reaped */
}

static int signals_install(struct server *sv)
{
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};
	int fds[2], rc = fdpipe_open(fds, O_CLOEXEC | O_NONBLOCK);

	if (rc < 0)
		return rc;
	sv->sig_rfd = fds[0];
	sv->sig_wfd = fds[1];
	sig_wfd = fds[1];
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int serve_main(const struct serve_opts *opts)
{
	struct server sv;

	/* stdin stays blocking: it is read only when poll says so, and a
	 * socket or terminal shared with stdout would carry O_NONBLOCK over
	 * to the responses. */
	if (serve_init(&sv, opts, stdout, SERVE_LINE_MAX) < 0 || signals_install(&sv) < 0) {
		serve_free(&sv);
		fprintf(stderr, "sandproof-ref: serve: %s\n", strerror(ENOMEM));
		return 1;
	}
	while (!serve_done(&sv)) {
		int64_t now = serve_now();

		if (serve_step(&sv, now))
			continue;
		if (!serve_done(&sv))
			poll_once(&sv, serve_next_wake(&sv, now));
	}
	serve_end(&sv);
	close(sv.sig_rfd);
	close(sv.sig_wfd);
	sig_wfd = -1;
	return 0;
}
