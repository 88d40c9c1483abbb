/* serve_proto.c - the JSON-lines protocol of `sandproof-ref serve`
 * (CONTRACT.md, SESS-1): request lines in, one response line each.
 *
 * A line is judged by jscan (RFC 8259, no NUL, valid UTF-8) before cJSON
 * reads it; the `request` of a start is handed to request_parse_with as
 * the exact bytes of the line, so the session's request is validated by
 * the same code, from the same text, as `run`'s. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jscan.h"
#include "jw.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "serve_int.h"

bool serve_reading(const struct server *sv)
{
	return !sv->call.active && !sv->in_eof && sv->line_len < SERVE_LINE_MAX;
}

void serve_read_input(struct server *sv)
{
	ssize_t n = read(0, sv->line + sv->line_len, SERVE_LINE_MAX - sv->line_len);
	char *nl;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		sv->in_eof = true;
		return;
	}
	if (n < 0)
		return;
	sv->line_len += (size_t)n;
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

static void respond_end(struct jw *w)
{
	jw_obj_close(w);
	fputc('\n', w->f);
	fflush(w->f);
}

void serve_respond_error(struct server *sv, const char *fmt, ...)
{
	char msg[REQUEST_ERR_MAX + 128];
	struct jw w;
	va_list ap;

	(void)sv;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jw_init(&w, stdout);
	jw_obj_open(&w, NULL);
	jw_str(&w, "error", msg); /* control bytes escaped: never a terminal sequence */
	respond_end(&w);
}

/* A session's state: the output since the last call (at most the ring),
 * lossless (text or base64, as OUT-7), and the outcome once exited. */
void serve_respond_session(struct server *sv, struct sess *s)
{
	uint64_t dropped;
	size_t n = sess_take(s, sv->scratch, &dropped);
	struct jw w;

	jw_init(&w, stdout);
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
	respond_end(&w);
}

static void respond_stop_all(struct server *sv)
{
	struct jw w;
	bool all = true;

	jw_init(&w, stdout);
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
	respond_end(&w);
}

void serve_call_check(struct server *sv, int64_t now)
{
	struct call *c = &sv->call;
	bool due = now >= c->deadline;

	if (!c->active)
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

/* ---- reading one line ------------------------------------------------ */

static size_t skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* t[i] is '"': the index past the closing quote (the text is valid JSON). */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i + 1;
}

static size_t skip_value(const char *t, size_t len, size_t i)
{
	int depth = 0;

	if (t[i] == '"')
		return skip_string(t, len, i);
	if (t[i] != '{' && t[i] != '[') {
		while (i < len && !strchr(",}] \t\r\n", t[i]))
			i++;
		return i;
	}
	for (; i < len; i++) {
		if (t[i] == '"')
			i = skip_string(t, len, i) - 1;
		else if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
	}
	return i;
}

/* The bytes of the top-level member `name` (spelled without escapes) of
 * the object text: true and its span, or false. */
static bool member_span(const char *t, size_t len, const char *name,
			size_t *off, size_t *vlen)
{
	size_t i = skip_ws(t, len, 0) + 1;

	for (;;) {
		size_t ks, ke, vs;

		i = skip_ws(t, len, i);
		if (i >= len || t[i] != '"')
			return false;
		ks = i + 1;
		i = skip_string(t, len, i);
		ke = i - 1;
		i = skip_ws(t, len, i) + 1; /* ':' */
		vs = i = skip_ws(t, len, i);
		i = skip_value(t, len, i);
		if (ke - ks == strlen(name) && memcmp(t + ks, name, ke - ks) == 0) {
			*off = vs;
			*vlen = i - vs;
			return true;
		}
		i = skip_ws(t, len, i);
		if (i >= len || t[i] != ',')
			return false;
		i++;
	}
}

/* Every member of o is one of `allowed` (space-separated), none twice.
 * NULL, or the offending key. */
static const char *members_check(const cJSON *o, const char *allowed)
{
	for (const cJSON *c = o->child; c; c = c->next) {
		size_t kl = strlen(c->string);
		const char *p = allowed;
		bool ok = false;

		while ((p = strstr(p, c->string))) {
			if ((p == allowed || p[-1] == ' ') && (p[kl] == ' ' || !p[kl]))
				ok = true;
			p += kl;
		}
		for (const cJSON *d = o->child; ok && d != c; d = d->next)
			if (strcmp(d->string, c->string) == 0)
				ok = false;
		if (!ok)
			return c->string;
	}
	return NULL;
}

/* An optional non-negative integer member: 0 absent, 1 set, -1 wrong. */
static int member_uint(const cJSON *o, const char *key, uint64_t *v)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
	double d;

	if (!m)
		return 0;
	d = m->valuedouble;
	if (!cJSON_IsNumber(m) || d < 0 || d > 9007199254740992.0 || d != (double)(uint64_t)d)
		return -1;
	*v = (uint64_t)d;
	return 1;
}

static int member_bool(const cJSON *o, const char *key, bool *v)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!m)
		return 0;
	if (!cJSON_IsBool(m))
		return -1;
	*v = cJSON_IsTrue(m);
	return 1;
}

static void handle_line(struct server *sv, const char *text, size_t len)
{
	char err[REQUEST_ERR_MAX];
	cJSON *o;
	const cJSON *op;
	struct line l = {.text = text, .len = len};

	if (jscan_check(text, len, NULL, err, sizeof(err)) < 0) {
		serve_respond_error(sv, "line: %s", err);
		return;
	}
	o = cJSON_ParseWithLength(text, len);
	op = o ? cJSON_GetObjectItemCaseSensitive(o, "op") : NULL;
	if (!cJSON_IsObject(o) || !cJSON_IsString(op)) {
		serve_respond_error(sv, "%s", !cJSON_IsObject(o) ? "line: not a JSON object"
			      : "op: missing or not a string");
		cJSON_Delete(o);
		return;
	}
	l.o = o;
	l.op = op->valuestring;
	if (strcmp(l.op, "start") == 0)
		serve_op_start(sv, &l);
	else if (strcmp(l.op, "continue") == 0)
		serve_op_continue(sv, &l);
	else if (strcmp(l.op, "stop") == 0 || strcmp(l.op, "stop_all") == 0)
		serve_op_stop(sv, &l, strcmp(l.op, "stop_all") == 0);
	else if (strcmp(l.op, "list") == 0 && !members_check(o, "op"))
		serve_op_list(sv);
	else if (strcmp(l.op, "list") == 0)
		serve_respond_error(sv, "list.%s: unknown field", members_check(o, "op"));
	else
		serve_respond_error(sv, "op: unknown operation \"%s\" (start, continue, list, "
			      "stop, stop_all)", l.op);
	cJSON_Delete(o);
}

bool serve_next_line(struct server *sv)
{
	char *nl = memchr(sv->line, '\n', sv->line_len);
	size_t len;

	if (!nl && sv->line_len == SERVE_LINE_MAX) {
		serve_respond_error(sv, "line: longer than %u bytes (skipped to its end)",
			      SERVE_LINE_MAX);
		sv->line_len = 0;
		sv->discarding = true;
		return true;
	}
	if (!nl && !(sv->in_eof && sv->line_len))
		return false;
	len = nl ? (size_t)(nl - sv->line) : sv->line_len;
	if (len && sv->line[len - 1] == '\r')
		len--;
	if (skip_ws(sv->line, len, 0) < len)
		handle_line(sv, sv->line, len);
	len = nl ? (size_t)(nl + 1 - sv->line) : sv->line_len;
	sv->line_len -= len;
	memmove(sv->line, sv->line + len, sv->line_len);
	return true;
}

/* ---- for the operations (serve_ops.c) ------------------------------- */

bool serve_member_span(const struct line *l, const char *name, size_t *off, size_t *vlen)
{
	return member_span(l->text, l->len, name, off, vlen);
}

int serve_member_uint(const struct line *l, const char *key, uint64_t *v)
{
	return member_uint(l->o, key, v);
}

int serve_member_bool(const struct line *l, const char *key, bool *v)
{
	return member_bool(l->o, key, v);
}

const char *serve_members_check(const struct line *l, const char *allowed)
{
	return members_check(l->o, allowed);
}
