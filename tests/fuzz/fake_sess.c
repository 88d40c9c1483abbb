/* fake_sess.c - the seam of the protocol fuzzers (fuzz_serve, fuzz_serve_ops):
 * sess.h without processes, a clock the driver moves (serve_now), and the
 * two platform calls the protocol makes.  Linked only into the fuzz
 * targets, in place of ref/sess.c and ref/serve.c.
 *
 * A fake session's behaviour is read from its request text, so protocol
 * lines choose it: "fake-exit" ends 40 ms after its start, "fake-ignore"
 * ignores SIGTERM (it ends at SIGKILL, SESS_KILL_MS after an interrupt),
 * "fake-flood" writes 3000 bytes at every service, "fake-fail" fails to
 * start; any other runs until interrupted, then ends 5 ms later.  Input is
 * echoed into the ring, as `cat` would, and drained from the pending count
 * at 4096 bytes a service.
 *
 * What it checks of the server (abort: a finding): a session is freed once,
 * and never while its worker still runs unless the server is ending
 * (fake_ending; serve_end SIGKILLs stragglers): a session forgotten
 * without being stopped is a process left behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sess.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "serve_int.h"
#include "sess.h"

struct fake {
	int64_t exit_at;   /* -1: runs until interrupted */
	bool ignore_term, flood, freed;
};

static struct fake *fakes;
static size_t n_fakes, cap_fakes;
int64_t fake_clock;
bool fake_ending;

int64_t serve_now(void)
{
	return fake_clock;
}

const struct request_path_rules *platform_path_rules(void)
{
	return &request_posix_path_rules;
}

const char *platform_errno_name(int err)
{
	static char b[32];

	snprintf(b, sizeof(b), "ERRNO_%d", err);
	return b;
}

static void fail(const char *what, uint64_t id)
{
	fprintf(stderr, "fake_sess: property violated: session %llu: %s\n",
		(unsigned long long)id, what);
	abort();
}

void fake_reset(void)
{
	free(fakes);
	fakes = NULL;
	n_fakes = cap_fakes = 0;
	fake_clock = 1000000;
	fake_ending = false;
}

static struct fake *fake_of(const struct sess *s)
{
	if (s->pid <= 0 || (size_t)s->pid > n_fakes)
		fail("not a session fake_sess started", s->id);
	return &fakes[s->pid - 1];
}

static bool has(const char *req, size_t len, const char *word)
{
	return memmem(req, len, word, strlen(word)) != NULL;
}

int sess_start(struct sess *s, uint64_t id, const char *req, size_t len,
	       bool tty, size_t ring_cap, int64_t now, const char **why)
{
	struct fake *f;

	memset(s, 0, sizeof(*s));
	s->pidfd = s->out_fd = s->in_fd = s->outcome_fd = -1;
	*why = "fork";
	if (has(req, len, "fake-fail"))
		return -EAGAIN;
	if (n_fakes == cap_fakes) {
		size_t cap = cap_fakes ? 2 * cap_fakes : 64;
		struct fake *nf = realloc(fakes, cap * sizeof(*nf));

		*why = "memory";
		if (!nf)
			return -ENOMEM;
		fakes = nf;
		cap_fakes = cap;
	}
	s->ring.buf = malloc(ring_cap);
	if (!s->ring.buf)
		return -ENOMEM;
	f = &fakes[n_fakes++];
	*f = (struct fake){.exit_at = has(req, len, "fake-exit") ? now + 40 : -1,
		.ignore_term = has(req, len, "fake-ignore"), .flood = has(req, len, "fake-flood")};
	s->id = id;
	s->tty = tty;
	s->pid = (pid_t)n_fakes;
	s->ring.cap = ring_cap;
	s->started_ms = s->touched_ms = now;
	s->drain_deadline = s->kill_deadline = -1;
	return 0;
}

static void fake_reap(struct sess *s, int64_t now)
{
	static const char outcome[] = "{\"version\":1,\"state\":\"completed\",\"fake\":true}";

	s->reaped = s->exited = true;
	s->exited_ms = now;
	s->kill_deadline = -1;
	s->pend_len = s->pend_off = 0;
	s->outcome = strdup(outcome);
	s->outcome_len = s->outcome ? strlen(outcome) : 0;
}

void sess_service(struct sess *s, short out_ev, short in_ev, short pid_ev, int64_t now)
{
	struct fake *f = fake_of(s);
	char flood[3000];

	(void)out_ev;
	(void)in_ev;
	(void)pid_ev;
	if (s->reaped)
		return;
	if (f->flood) {
		memset(flood, 'y', sizeof(flood));
		sess_ring_put(&s->ring, flood, sizeof(flood));
	}
	s->pend_off += sess_pending(s) < 4096 ? sess_pending(s) : 4096;
	if ((f->exit_at >= 0 && now >= f->exit_at) ||
	    (s->kill_deadline >= 0 && now >= s->kill_deadline))
		fake_reap(s, now);
}

int sess_input(struct sess *s, const char *data, size_t len, bool eof)
{
	if (s->reaped || s->close_after)
		return -EPIPE;
	if (sess_pending(s) + len > SESS_INPUT_MAX)
		return -ENOBUFS;
	sess_ring_put(&s->ring, data, len);
	s->pend_len += len;
	s->close_after = eof && !s->tty;
	return 0;
}

size_t sess_pending(const struct sess *s)
{
	return s->pend_len - s->pend_off;
}

void sess_interrupt(struct sess *s, int64_t now)
{
	struct fake *f = fake_of(s);

	s->interrupted = true;
	if (s->reaped || s->kill_deadline >= 0)
		return;
	s->kill_deadline = now + SESS_KILL_MS;
	if (!f->ignore_term && (f->exit_at < 0 || f->exit_at > now + 5))
		f->exit_at = now + 5;
}

int64_t sess_deadline(const struct sess *s)
{
	const struct fake *f = &fakes[s->pid - 1];
	int64_t d = s->reaped ? -1 : s->kill_deadline;

	if (!s->reaped && f->exit_at >= 0 && (d < 0 || f->exit_at < d))
		d = f->exit_at;
	return d;
}

void sess_free(struct sess *s)
{
	struct fake *f = fake_of(s);

	if (f->freed)
		fail("freed twice", s->id);
	if (!s->reaped && !fake_ending)
		fail("forgotten while its worker still runs (never stopped)", s->id);
	f->freed = true;
	free(s->ring.buf);
	free(s->outcome);
	memset(s, 0, sizeof(*s));
	s->pidfd = s->out_fd = s->in_fd = s->outcome_fd = -1;
}
