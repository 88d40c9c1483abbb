/* serve_int.h - what serve.c (the loop) and serve_proto.c (the protocol)
 * share.  Not a public interface. */
#ifndef SANDPROOF_SERVE_INT_H
#define SANDPROOF_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve.h"
#include "sess.h"

struct slot {
	struct sess s;
	bool pruned;   /* forgotten: stopped, reaped in the background */
};

enum call_op { CALL_SESSION, CALL_STOP_ALL };

/* The one call being answered: it ends when its deadline passes or its
 * session has exited (CALL_STOP_ALL: every session). */
struct call {
	bool active;
	enum call_op op;
	struct sess *s;
	int64_t deadline;
};

struct server {
	struct serve_opts opts;
	struct slot **v;     /* sessions, pruned ones included */
	size_t n;
	uint64_t next_id;
	char *line;          /* SERVE_LINE_MAX + 1: bytes read, not yet a line */
	size_t line_len;
	bool discarding;     /* an over-long line: skipping to its newline */
	bool in_eof;
	char *scratch;       /* opts.output_bytes: one response's output */
	int sig_rfd, sig_wfd;
	struct call call;
};

int64_t serve_now(void);
struct sess *serve_find(struct server *sv, uint64_t id);
void serve_forget(struct server *sv, size_t i);
void serve_stop_everything(struct server *sv);

/* One request line, judged valid JSON, and its parsed object. */
struct cJSON;
struct line {
	const char *text;
	size_t len;
	const struct cJSON *o;
	const char *op;
};

/* serve_proto.c */
void serve_respond_error(struct server *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void serve_respond_session(struct server *sv, struct sess *s);
bool serve_member_span(const struct line *l, const char *name, size_t *off, size_t *vlen);
/* Optional members: 0 absent, 1 set, -1 of the wrong type. */
int serve_member_uint(const struct line *l, const char *key, uint64_t *v);
int serve_member_bool(const struct line *l, const char *key, bool *v);
/* NULL when every member is one of `allowed` (space-separated) and none is
 * repeated; else the offending key. */
const char *serve_members_check(const struct line *l, const char *allowed);
bool serve_reading(const struct server *sv);
void serve_read_input(struct server *sv);
/* Answer the next complete line, if any: true when one was taken. */
bool serve_next_line(struct server *sv);
/* Answer the waiting call if it is due. */
void serve_call_check(struct server *sv, int64_t now);

/* serve_ops.c */
void serve_op_start(struct server *sv, const struct line *l);
void serve_op_continue(struct server *sv, const struct line *l);
void serve_op_stop(struct server *sv, const struct line *l, bool all);
void serve_op_list(struct server *sv);

#endif
