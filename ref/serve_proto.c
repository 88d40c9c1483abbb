/* serve_proto.c - the JSON-lines protocol of `sandproof-ref serve`
 * (CONTRACT.md, SESS-1): request lines in, one response line each.
 *
 * A line is judged by jscan (RFC 8259, no NUL, valid UTF-8) before any of
 * it is read; its members are then read from the text itself (serve_msg.c),
 * and the `request` of a start is handed to request_parse_with as the exact
 * bytes of the line, so the session's request is validated by the same
 * code, from the same text, as `run`'s. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "jw.h"
#include "sandproof/request.h"
#include "serve_int.h"

bool serve_reading(const struct server *sv)
{
	return !sv->call.active && !sv->in_eof && !sv->gone && sv->line_len <= sv->line_max;
}

void serve_feed(struct server *sv, const char *p, size_t n)
{
	char *nl;

	if (sv->line_off) {
		memmove(sv->line, sv->line + sv->line_off, sv->line_len);
		sv->line_off = 0;
	}
	if (n > sv->line_max + 1 - sv->line_len)
		n = sv->line_max + 1 - sv->line_len;
	memcpy(sv->line + sv->line_len, p, n);
	sv->line_len += n;
	if (!sv->discarding)
		return;
	nl = memchr(sv->line, '\n', sv->line_len);
	if (!nl) {
		sv->line_len = 0;
		return;
	}
	sv->line_len -= (size_t)(nl + 1 - sv->line);
	memmove(sv->line, nl + 1, sv->line_len);
	sv->discarding = false;
}

/* Every response ends here: a stdout that cannot be written means the
 * caller is gone, and the server stops (SESS-1). */
static void respond_end(struct server *sv, struct jw *w)
{
	jw_obj_close(w);
	fputc('\n', w->f);
	if (fflush(w->f) != 0 || ferror(w->f))
		sv->gone = true;
}

void serve_respond_error(struct server *sv, const char *fmt, ...)
{
	char msg[REQUEST_ERR_MAX + 128];
	struct jw w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jw_init(&w, sv->out);
	jw_obj_open(&w, NULL);
	jw_str(&w, "error", msg); /* control bytes escaped: never a terminal sequence */
	respond_end(sv, &w);
}

/* A session's state: the output since the last call (at most the ring),
 * lossless (text or base64, as OUT-7), and the outcome once exited. */
void serve_respond_session(struct server *sv, struct sess *s)
{
	uint64_t dropped;
	size_t n = sess_take(s, sv->scratch, &dropped);
	struct jw w;

	jw_init(&w, sv->out);
	jw_obj_open(&w, NULL);
	jw_uint(&w, "session", s->id);
	if (jw_text_len(sv->scratch, n) <= JW_BASE64_LEN(n)) {
		jw_strn(&w, "output", sv->scratch, n);
		jw_str(&w, "output_encoding", "utf-8");
	} else {
		jw_raw_open(&w, "output");
		jw_base64(w.f, sv->scratch, n);
		jw_raw_close(&w);
		jw_str(&w, "output_encoding", "base64");
	}
	jw_bool(&w, "truncated", dropped > 0);
	jw_uint(&w, "dropped_bytes", dropped);
	jw_bool(&w, "exited", s->exited);
	jw_bool(&w, "interrupted", s->interrupted);
	jw_bool(&w, "tty", s->tty);
	/* Last, so the comma is certain: the worker's outcome line verbatim. */
	fputs(",\"outcome\":", w.f);
	if (s->exited && s->outcome && s->outcome_len) /* never "outcome":} */
		fwrite(s->outcome, 1, s->outcome_len, w.f);
	else
		fputs("null", w.f);
	respond_end(sv, &w);
}

static void respond_stop_all(struct server *sv)
{
	struct jw w;
	bool all = true;

	jw_init(&w, sv->out);
	jw_obj_open(&w, NULL);
	jw_arr_open(&w, "stopped");
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->v[i]->pruned || !sv->v[i]->s.interrupted)
			continue;
		jw_uint(&w, NULL, sv->v[i]->s.id);
		all = all && sv->v[i]->s.exited;
	}
	jw_arr_close(&w);
	jw_bool(&w, "exited", all);
	respond_end(sv, &w);
}

void serve_op_list(struct server *sv)
{
	int64_t now = serve_now();
	struct jw w;

	jw_init(&w, sv->out);
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
	respond_end(sv, &w);
}

/* Answer the waiting call if it is due: its deadline passed, its session
 * (CALL_STOP_ALL: every session) exited, or stdin has ended (SESS-4: once
 * the caller has closed its input no call waits). */
static void call_check(struct server *sv, int64_t now)
{
	struct call *c = &sv->call;
	bool due = now >= c->deadline || sv->ended;

	if (!c->active || sv->gone)
		return;
	if (c->op == CALL_SESSION) {
		if (!due && !c->s->exited)
			return;
		c->s->busy = false;
		c->s->touched_ms = now;
		serve_respond_session(sv, c->s);
	} else {
		for (size_t i = 0; i < sv->n && !due; i++)
			if (!sv->v[i]->s.exited)
				return;
		respond_stop_all(sv);
	}
	c->active = false;
}

static void handle_line(struct server *sv, const char *text, size_t len)
{
	char err[REQUEST_ERR_MAX];
	struct line l;

	if (jscan_check(text, len, NULL, err, sizeof(err)) < 0) {
		serve_respond_error(sv, "line: %s", err);
		return;
	}
	if (serve_msg_parse(&l, text, len, err, sizeof(err)) < 0) {
		serve_respond_error(sv, "%s", err);
		return;
	}
	if (strcmp(l.op, "start") == 0)
		serve_op_start(sv, &l);
	else if (strcmp(l.op, "continue") == 0)
		serve_op_continue(sv, &l);
	else if (strcmp(l.op, "list") == 0)
		serve_op_list(sv);
	else
		serve_op_stop(sv, &l, strcmp(l.op, "stop_all") == 0);
}

/* Answer the next complete line, if any (at the end of input, the last
 * one without its newline): true when one was taken.  A line is at most
 * line_max bytes, its newline not counted; a longer one is answered with
 * an error and skipped to its newline. */
static bool next_line(struct server *sv)
{
	char *p = sv->line + sv->line_off, *nl = memchr(p, '\n', sv->line_len);
	size_t len;

	if (!nl && sv->line_len > sv->line_max) {
		serve_respond_error(sv, "line: longer than %zu bytes (skipped to its end)",
				    sv->line_max);
		sv->line_len = sv->line_off = 0;
		sv->discarding = true;
		return true;
	}
	if (!nl && !(sv->in_eof && sv->line_len))
		return false;
	len = nl ? (size_t)(nl - p) : sv->line_len;
	if (len && p[len - 1] == '\r')
		len--;
	for (size_t i = 0; i < len; i++) {
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') { /* a blank line is no request */
			handle_line(sv, p, len);
			break;
		}
	}
	len = nl ? (size_t)(nl + 1 - p) : sv->line_len;
	sv->line_len -= len;
	sv->line_off = sv->line_len ? sv->line_off + len : 0;
	return true;
}

bool serve_step(struct server *sv, int64_t now)
{
	serve_expire(sv, now);
	call_check(sv, now);
	return !sv->call.active && !sv->gone && next_line(sv);
}

bool serve_done(const struct server *sv)
{
	return sv->gone || (!sv->call.active && sv->in_eof && sv->line_len == 0);
}
