/* serve_ops.c - the operations of `sandproof-ref serve` (SESS-*): start,
 * continue, stop, stop_all, list; the yield clamps and the pruning order. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "serve_int.h"

/* yield_ms, clamped (SESS-3): 0 when absent; -1 when not a whole number. */
static int64_t yield_of(struct server *sv, const struct line *l, int64_t max)
{
	uint64_t y = 0;

	if (serve_member_uint(l, "yield_ms", &y) < 0) {
		serve_respond_error(sv, "%s.yield_ms: must be a non-negative whole number", l->op);
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

static size_t count_live(const struct server *sv, bool running_only)
{
	size_t n = 0;

	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i]->pruned && (!running_only || !sv->v[i]->s.exited))
			n++;
	return n;
}

/* At the session limit (SESS-5): the finished session touched least
 * recently is forgotten; failing one, the running session touched least
 * recently is stopped and forgotten, but only while more than
 * SERVE_RUNNING_FLOOR run.  true when a slot is free. */
static bool prune_one(struct server *sv)
{
	struct slot *victim = NULL;
	bool finished = false;
	size_t vi = 0;

	for (size_t i = 0; i < sv->n; i++) {
		struct slot *sl = sv->v[i];
		bool fin = sl->s.exited;

		if (sl->pruned || sl->s.busy)
			continue;
		if (!victim || (fin && !finished) ||
		    (fin == finished && sl->s.touched_ms < victim->s.touched_ms)) {
			victim = sl;
			finished = fin;
			vi = i;
		}
	}
	if (!victim || (!finished && count_live(sv, true) <= SERVE_RUNNING_FLOOR))
		return false;
	if (finished) {
		serve_forget(sv, vi);
		return true;
	}
	victim->pruned = true; /* reaped by the loop, then freed (expire) */
	sess_interrupt(&victim->s, serve_now());
	free(victim->s.ring.buf);
	victim->s.ring = (struct sess_ring){.buf = NULL};
	return true;
}

/* The request member, validated by request_parse_with from the line's own
 * bytes: 0 and *req, or -1 after responding. */
static int start_request(struct server *sv, const struct line *l, struct request *req,
			 size_t *off, size_t *len)
{
	char err[REQUEST_ERR_MAX];

	if (!serve_member_span(l, "request", off, len)) {
		serve_respond_error(sv, "start.request: missing (an object, spelled without escapes)");
		return -1;
	}
	if (request_parse_with(l->text + *off, *len, getenv("HOME"), platform_path_rules(),
			       req, err) < 0) {
		serve_respond_error(sv, "start.request: %s", err);
		return -1;
	}
	return 0;
}

void serve_op_start(struct server *sv, const struct line *l)
{
	const char *bad = serve_members_check(l, "op request tty yield_ms"), *why;
	struct request req;
	struct slot *sl;
	size_t off, len;
	int64_t wait;
	bool tty = false;
	int rc;

	if (bad || serve_member_bool(l, "tty", &tty) < 0) {
		serve_respond_error(sv, "start.%s: %s", bad ? bad : "tty",
				    bad ? "unknown or repeated field" : "must be true or false");
		return;
	}
	if ((wait = yield_of(sv, l, SERVE_YIELD_INPUT_MAX_MS)) < 0 ||
	    start_request(sv, l, &req, &off, &len) < 0)
		return;
	if (count_live(sv, false) >= sv->opts.max_sessions && !prune_one(sv)) {
		serve_respond_error(sv, "start: session limit (%zu) reached and none may be "
				    "pruned (%zu running, floor %d)", sv->opts.max_sessions,
				    count_live(sv, true), SERVE_RUNNING_FLOOR);
		request_free(&req);
		return;
	}
	sl = calloc(1, sizeof(*sl));
	rc = sl ? sess_start(&sl->s, sv->next_id, l->text + off, len, tty,
			     sv->opts.output_bytes, serve_now(), &why) : -ENOMEM;
	if (rc < 0) {
		serve_respond_error(sv, "start: %s: %s", sl ? why : "memory",
				    platform_errno_name(-rc));
		free(sl);
		request_free(&req);
		return;
	}
	sv->next_id++;
	sv->v[sv->n++] = sl;
	if (req.stdin_len)
		sess_input(&sl->s, req.stdin_data, req.stdin_len, false);
	request_free(&req);
	call_begin(sv, &sl->s, wait);
}

static struct sess *session_of(struct server *sv, const struct line *l)
{
	uint64_t id = 0;
	struct sess *s;

	if (serve_member_uint(l, "session", &id) <= 0) {
		serve_respond_error(sv, "%s.session: missing or not a session number", l->op);
		return NULL;
	}
	s = serve_find(sv, id);
	if (!s)
		serve_respond_error(sv, "%s.session: no session %llu (never started, or "
				    "forgotten: finished past retention, or pruned)", l->op,
				    (unsigned long long)id);
	return s;
}

void serve_op_continue(struct server *sv, const struct line *l)
{
	const char *bad = serve_members_check(l, "op session input eof interrupt yield_ms");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(l->o, "input");
	bool eof = false, intr = false, empty;
	struct sess *s;
	int64_t wait;
	int rc;

	if (bad || (in && !cJSON_IsString(in)) || serve_member_bool(l, "eof", &eof) < 0 ||
	    serve_member_bool(l, "interrupt", &intr) < 0) {
		serve_respond_error(sv, "continue.%s: %s", bad ? bad : "input/eof/interrupt",
				    bad ? "unknown or repeated field" : "wrong type");
		return;
	}
	empty = !intr && !eof && (!in || !in->valuestring[0]);
	if (!(s = session_of(sv, l)) ||
	    (wait = yield_of(sv, l, empty ? SERVE_YIELD_POLL_MAX_MS : SERVE_YIELD_INPUT_MAX_MS)) < 0)
		return;
	s->touched_ms = serve_now();
	if (intr) {
		if (!s->reaped)
			sess_interrupt(s, serve_now());
	} else if (!empty) {
		rc = sess_input(s, in ? in->valuestring : "", in ? strlen(in->valuestring) : 0, eof);
		if (rc < 0) {
			serve_respond_error(sv, "continue.input: session %llu: %s; nothing written",
					    (unsigned long long)s->id,
					    rc == -EPIPE ? (s->reaped ? "it has exited" : "its stdin is closed")
					    : rc == -ENOBUFS ? "more than 1 MiB of input still unread"
					    : "out of memory");
			return;
		}
	}
	call_begin(sv, s, wait);
}

void serve_op_stop(struct server *sv, const struct line *l, bool all)
{
	const char *bad = serve_members_check(l, all ? "op" : "op session");
	int64_t now = serve_now();
	struct sess *s;

	if (bad) {
		serve_respond_error(sv, "%s.%s: unknown or repeated field", l->op, bad);
		return;
	}
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

void serve_op_list(struct server *sv)
{
	int64_t now = serve_now();
	struct jw w;

	jw_init(&w, stdout);
	jw_obj_open(&w, NULL);
	jw_arr_open(&w, "sessions");
	for (size_t i = 0; i < sv->n; i++) {
		const struct sess *s = &sv->v[i]->s;

		if (sv->v[i]->pruned)
			continue;
		jw_obj_open(&w, NULL);
		jw_uint(&w, "session", s->id);
		jw_bool(&w, "tty", s->tty);
		jw_bool(&w, "exited", s->exited);
		jw_bool(&w, "interrupted", s->interrupted);
		jw_uint(&w, "unread_bytes", s->ring.len);
		jw_uint(&w, "idle_ms", (uint64_t)(now - s->touched_ms));
		jw_obj_close(&w);
	}
	jw_arr_close(&w);
	jw_obj_close(&w);
	fputc('\n', stdout);
	fflush(stdout);
}
