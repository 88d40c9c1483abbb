/* serve.c - the loop of `sandproof-ref serve` (see serve.h).
 *
 * Single-threaded: one poll() over standard input, a signal self-pipe and
 * every session's output, input and pidfd.  Calls are answered one at a
 * time, in order; while a call waits (its yield) every session is still
 * drained, so no command blocks on a full pipe and nothing a call did not
 * ask for is lost except as the ring bounds say (SESS-2).  Because calls
 * are serialized, the session a call touches is never pruned or forgotten
 * under it (it is marked busy for the call's length anyway). */
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

struct sess *serve_find(struct server *sv, uint64_t id)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sv->v[i]->s.id == id && !sv->v[i]->pruned)
			return &sv->v[i]->s;
	return NULL;
}

void serve_forget(struct server *sv, size_t i)
{
	sess_free(&sv->v[i]->s);
	free(sv->v[i]);
	sv->v[i] = sv->v[--sv->n];
}

/* Finished sessions past their retention, and pruned ones once reaped. */
static void expire(struct server *sv, int64_t now)
{
	for (size_t i = 0; i < sv->n;) {
		struct slot *sl = sv->v[i];

		if (!sl->s.busy && sl->s.exited &&
		    (sl->pruned || now - sl->s.exited_ms >= sv->opts.retain_ms)) {
			serve_forget(sv, i);
			continue;
		}
		i++;
	}
}

static int64_t next_wake(const struct server *sv, int64_t now)
{
	int64_t t = sv->call.active ? sv->call.deadline : -1;

	for (size_t i = 0; i < sv->n; i++) {
		const struct sess *s = &sv->v[i]->s;
		int64_t d = sess_deadline(s);

		if (s->exited && !s->busy)
			d = sv->v[i]->pruned ? now : s->exited_ms + sv->opts.retain_ms;
		if (d >= 0 && (t < 0 || d < t))
			t = d;
	}
	return t;
}

/* Poll everything once (at most until `until`, -1: forever) and service
 * what became ready.  Standard input is polled only when a line may be
 * read (no call waiting).  Returns false when the server must stop. */
static bool poll_once(struct server *sv, int64_t until)
{
	size_t cap = 2 + 3 * sv->n, k = 0;
	struct pollfd *pf = calloc(cap, sizeof(*pf));
	int64_t now = serve_now();
	int timeout = until < 0 ? -1 : until > now ? (int)(until - now) : 0;
	bool go = true;

	if (!pf)
		return false;
	pf[k++] = (struct pollfd){.fd = sv->sig_rfd, .events = POLLIN};
	pf[k++] = (struct pollfd){.fd = serve_reading(sv) ? 0 : -1, .events = POLLIN};
	for (size_t i = 0; i < sv->n; i++) {
		struct sess *s = &sv->v[i]->s;

		pf[k++] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
		pf[k++] = (struct pollfd){.fd = s->pend ? s->in_fd : -1, .events = POLLOUT};
		pf[k++] = (struct pollfd){.fd = s->reaped ? -1 : s->pidfd, .events = POLLIN};
	}
	if (poll(pf, k, timeout) < 0 && errno != EINTR) {
		free(pf);
		return false;
	}
	if (pf[0].revents) {
		unsigned char b[64];

		while (read(sv->sig_rfd, b, sizeof(b)) > 0)
			;
		go = false; /* SIGINT, SIGTERM, SIGHUP: stop everything */
	}
	if (pf[1].revents)
		serve_read_input(sv);
	now = serve_now();
	for (size_t i = 0; i < sv->n; i++)
		sess_service(&sv->v[i]->s, pf[2 + 3 * i].revents, pf[3 + 3 * i].revents,
			     pf[4 + 3 * i].revents, now);
	free(pf);
	return go;
}

/* Stop every session and wait for all to end: SIGTERM, SIGKILL past
 * SESS_KILL_MS, output drained for at most SESS_DRAIN_MS; a further signal
 * to the server does not cut this short (what is left is SIGKILLed by
 * sess_free). */
void serve_stop_everything(struct server *sv)
{
	int64_t now = serve_now(), end = now + SESS_KILL_MS + SESS_DRAIN_MS + 1000;

	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i]->s.reaped)
			sess_interrupt(&sv->v[i]->s, now);
	while (serve_now() < end) {
		bool all = true;

		for (size_t i = 0; i < sv->n; i++)
			all = all && sv->v[i]->s.exited;
		if (all)
			break;
		poll_once(sv, serve_now() + 100);
	}
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

static void server_free(struct server *sv)
{
	while (sv->n)
		serve_forget(sv, sv->n - 1);
	free(sv->v);
	free(sv->line);
	free(sv->scratch);
	close(sv->sig_rfd);
	close(sv->sig_wfd);
	sig_wfd = -1;
}

int serve_main(const struct serve_opts *opts)
{
	struct server sv = {.opts = *opts, .next_id = 1};
	bool go = true;

	/* Pruned sessions keep a slot until reaped: at most as many again. */
	sv.v = calloc(2 * opts->max_sessions, sizeof(*sv.v));
	sv.line = malloc(SERVE_LINE_MAX + 1);
	sv.scratch = malloc(opts->output_bytes);
	if (!sv.v || !sv.line || !sv.scratch || signals_install(&sv) < 0) {
		fprintf(stderr, "sandproof-ref: serve: %s\n", strerror(ENOMEM));
		return 1;
	}
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	while (go) {
		int64_t now = serve_now();

		expire(&sv, now);
		serve_call_check(&sv, now);
		if (!sv.call.active && serve_next_line(&sv))
			continue;
		if (!sv.call.active && sv.in_eof)
			break;
		go = poll_once(&sv, next_wake(&sv, now));
	}
	serve_stop_everything(&sv);
	server_free(&sv);
	return 0;
}
