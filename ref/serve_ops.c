/* serve_ops.c - the operations of `sandproof-ref serve` (SESS-*): start,
 * continue, stop, stop_all; the yield clamps and the input bound.  (list is
 * a response only: serve_proto.c.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "serve_int.h"

/* yield_ms, clamped (SESS-4): 0 when absent; -1 after responding when it
 * is not a non-negative integer. */
static int64_t yield_of(struct server *sv, const struct line *l, int64_t max)
{
	uint64_t y = 0;

	if (serve_msg_uint(l, SK_YIELD, &y) < 0) {
		serve_respond_error(sv, "%s.yield_ms: must be a non-negative integer", l->op);
		return -1;
	}
	return y > (uint64_t)max ? max : (int64_t)y;
}

static void call_begin(struct server *sv, struct sess *s, int64_t wait)
{
	int64_t now = serve_now();

	s->busy = true;
	s->touched_ms = now;
	sv->call = (struct call){.active = true, .op = CALL_SESSION, .s = s,
		.deadline = now + wait};
}

/* The request member, validated by request_parse_with from the line's own
 * bytes: 0 and *req, or -1 after responding. */
static int start_request(struct server *sv, const struct line *l, struct request *req)
{
	char err[REQUEST_ERR_MAX];

	if (!l->has[SK_REQUEST]) {
		serve_respond_error(sv, "start.request: missing (a request object, as run takes)");
		return -1;
	}
	if (request_parse_with(l->text + l->off[SK_REQUEST], l->vlen[SK_REQUEST],
			       platform_path_rules(), req, err) < 0) {
		serve_respond_error(sv, "start.request: %s", err);
		return -1;
	}
	return 0;
}

/* A new session in a slot of the table: the slot, or NULL after
 * responding (nothing left running). */
static struct slot *start_session(struct server *sv, const struct line *l, bool tty)
{
	const char *step = "memory";
	struct slot *sl = calloc(1, sizeof(*sl));
	int rc = sl ? sess_start(&sl->s, sv->next_id, l->text + l->off[SK_REQUEST],
				 l->vlen[SK_REQUEST], tty, sv->opts.output_bytes, serve_now(),
				 &step) : -ENOMEM;

	if (rc == 0 && serve_add(sv, sl) < 0) {
		sess_free(&sl->s); /* serve_room said there was room: never here */
		rc = -ENOSPC;
		step = "session table";
	}
	if (rc < 0) {
		serve_respond_error(sv, "start: %s: %s", step, platform_errno_name(-rc));
		free(sl);
		return NULL;
	}
	sv->next_id++;
	return sl;
}

void serve_op_start(struct server *sv, const struct line *l)
{
	char why[256];
	struct request req;
	struct slot *sl;
	int64_t wait;
	bool tty = false;

	if (serve_msg_bool(l, SK_TTY, &tty) < 0) {
		serve_respond_error(sv, "start.tty: must be true or false");
		return;
	}
	if ((wait = yield_of(sv, l, SERVE_YIELD_INPUT_MAX_MS)) < 0 ||
	    start_request(sv, l, &req) < 0)
		return;
	if (sv->ended)
		serve_respond_error(sv, "start: standard input has ended; nothing started");
	else if (!serve_room(sv, why, sizeof(why)))
		serve_respond_error(sv, "start: %s", why);
	else if ((sl = start_session(sv, l, tty))) {
		if (req.stdin_len)
			sess_input(&sl->s, req.stdin_data, req.stdin_len, false);
		call_begin(sv, &sl->s, wait);
	}
	request_free(&req);
}

static struct sess *session_of(struct server *sv, const struct line *l)
{
	uint64_t id = 0;
	struct sess *s;

	if (serve_msg_uint(l, SK_SESSION, &id) <= 0) {
		serve_respond_error(sv, "%s.session: missing or not a session number", l->op);
		return NULL;
	}
	s = serve_find(sv, id);
	if (!s) /* the number as written: exact, however large */
		serve_respond_error(sv, "%s.session: no session %.*s (never started, or "
				    "forgotten: finished past retention, or pruned)", l->op,
				    (int)l->vlen[SK_SESSION], l->text + l->off[SK_SESSION]);
	return s;
}

/* The input member into the session's stdin (SESS-1): 0, or -1 after
 * responding (nothing written).  At most SESS_INPUT_MAX bytes may wait
 * for the command, what it has not read yet of earlier calls included. */
static int give_input(struct server *sv, const struct line *l, struct sess *s, bool eof)
{
	size_t n = 0;
	char *buf;
	int rc;

	serve_msg_str(l, SK_INPUT, NULL, 0, &n);
	buf = n > SESS_INPUT_MAX ? NULL : malloc(n + 1);
	if (buf)
		serve_msg_str(l, SK_INPUT, buf, n, &n);
	rc = n > SESS_INPUT_MAX ? -ENOBUFS : buf ? sess_input(s, buf, n, eof) : -ENOMEM;
	free(buf);
	if (rc == 0)
		return 0;
	if (rc == -ENOBUFS)
		serve_respond_error(sv, "continue.input: session %llu: %zu bytes would wait for the "
				    "command, %zu of them not read yet, over %d; nothing written",
				    (unsigned long long)s->id, sess_pending(s) + n,
				    sess_pending(s), SESS_INPUT_MAX);
	else if (rc == -ENOTTY)
		serve_respond_error(sv, "continue.eof: session %llu: its terminal has no end-of-file "
				    "character (VEOF disabled); nothing written",
				    (unsigned long long)s->id);
	else
		serve_respond_error(sv, "continue.input: session %llu: %s; nothing written",
				    (unsigned long long)s->id,
				    rc == -EPIPE ? (s->reaped ? "it has exited" : "its stdin is closed")
				    : "out of memory");
	return -1;
}

void serve_op_continue(struct server *sv, const struct line *l)
{
	bool eof = false, intr = false;
	size_t n = 0;
	struct sess *s;
	int64_t wait;
	const char *bad = serve_msg_str(l, SK_INPUT, NULL, 0, &n) < 0 ? "input: must be a string"
		: serve_msg_bool(l, SK_EOF, &eof) < 0 ? "eof: must be true or false"
		: serve_msg_bool(l, SK_INTERRUPT, &intr) < 0 ? "interrupt: must be true or false"
		: NULL;

	if (bad) {
		serve_respond_error(sv, "continue.%s", bad);
		return;
	}
	if (!(s = session_of(sv, l)) ||
	    (wait = yield_of(sv, l, intr || eof || n ? SERVE_YIELD_INPUT_MAX_MS
			     : SERVE_YIELD_POLL_MAX_MS)) < 0)
		return;
	s->touched_ms = serve_now();
	if (intr) {
		if (!s->reaped)
			sess_interrupt(s, serve_now());
	} else if ((eof || n) && give_input(sv, l, s, eof) < 0) {
		return;
	}
	call_begin(sv, s, wait);
}

void serve_op_stop(struct server *sv, const struct line *l, bool all)
{
	int64_t now = serve_now();
	struct sess *s;

	if (!all) {
		if (!(s = session_of(sv, l)))
			return;
		if (!s->reaped)
			sess_interrupt(s, now);
		call_begin(sv, s, SERVE_STOP_WAIT_MS);
		return;
	}
	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i]->pruned && !sv->v[i]->s.reaped)
			sess_interrupt(&sv->v[i]->s, now);
	sv->call = (struct call){.active = true, .op = CALL_STOP_ALL,
		.deadline = now + SERVE_STOP_WAIT_MS};
}
