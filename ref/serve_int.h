/* serve_int.h - what the parts of `sandproof-ref serve` share: serve.c (the
 * poll loop, signals, the end), serve_proto.c (lines in, responses out),
 * serve_msg.c (a line's members), serve_ops.c (the operations) and
 * serve_slots.c (the session table).  Not a public interface.
 *
 * Everything but serve.c is free of I/O other than the response stream and
 * the sess.h calls, so tests/fuzz links it with fake sessions and a fake
 * clock (serve_now) and drives it line by line. */
#ifndef SANDPROOF_SERVE_INT_H
#define SANDPROOF_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	FILE *out;           /* the responses (stdout) */
	/* The session table: v[0..n), n <= cap = 2 * max_sessions.  At most
	 * max_sessions are live (not pruned); the other slots hold sessions
	 * pruned to make room until their worker is reaped.  serve_room is
	 * the only way to room and serve_add never writes past cap (SESS-6). */
	struct slot **v;
	size_t n, cap;
	uint64_t next_id;
	/* line_max + 1 bytes; line[line_off, line_off + line_len) read and not
	 * yet answered: a line taken moves line_off, and serve_feed moves what
	 * is left to the front, so a chunk of many lines costs its length. */
	char *line;
	size_t line_off, line_len, line_max;
	bool discarding;     /* an over-long line: skipping to its newline */
	bool in_eof;         /* stdin read to its end */
	bool ended;          /* stdin ended or hung up: no call waits, nothing starts */
	bool gone;           /* stop now: a signal, or stdout cannot be written */
	char *scratch;       /* opts.output_bytes: one response's output */
	struct call call;
	int sig_rfd, sig_wfd; /* serve.c's signal self-pipe, -1 elsewhere */
};

/* The clock every deadline is read from (serve.c: CLOCK_MONOTONIC, ms). */
int64_t serve_now(void);

/* ---- serve_slots.c: the session table ---- */
/* line_max: SERVE_LINE_MAX (a fuzzer takes less).  0, or -ENOMEM. */
int serve_init(struct server *sv, const struct serve_opts *opts, FILE *out, size_t line_max);
/* Forgets every session (sess_free kills what is still running). */
void serve_free(struct server *sv);
struct sess *serve_find(struct server *sv, uint64_t id);
void serve_forget(struct server *sv, size_t i);
size_t serve_count(const struct server *sv, bool running_only);
/* Room for one more session (SESS-6), pruning one if the limit says so:
 * true, or false with the reason in why. */
bool serve_room(struct server *sv, char *why, size_t len);
/* Appends a started session after serve_room: 0, or -ENOSPC (never past
 * cap, whatever the caller did). */
int serve_add(struct server *sv, struct slot *sl);
/* Finished sessions past their retention, and pruned ones once reaped. */
void serve_expire(struct server *sv, int64_t now);
/* When the loop must next wake up (the call's deadline, a session's), or
 * -1: only input can move anything. */
int64_t serve_next_wake(const struct server *sv, int64_t now);

/* ---- serve_msg.c: one line's members, read without a tree ---- */
enum serve_key { SK_OP, SK_REQUEST, SK_TTY, SK_YIELD, SK_SESSION, SK_INPUT, SK_EOF,
		 SK_INTERRUPT, SK_COUNT };

struct line {
	const char *text;
	size_t len;
	char op[65];            /* the op (a known one once parsed) */
	unsigned allowed;       /* the members the op takes (1 << key) */
	bool has[SK_COUNT];
	size_t off[SK_COUNT], vlen[SK_COUNT]; /* each member's value, as text */
};

/* The members of the object the line holds (judged by jscan first): every
 * key one the op takes, none twice.  0, or -1 with "member: what" in err. */
int serve_msg_parse(struct line *l, const char *text, size_t len, char *err, size_t errlen);
/* Optional members: 0 absent, 1 set, -1 of the wrong type.  An integer is
 * JSON integer syntax (no sign, fraction, exponent), saturated at
 * UINT64_MAX.  A string is decoded: its length in *n, at most cap bytes of
 * it in out (NULL: none). */
int serve_msg_uint(const struct line *l, enum serve_key k, uint64_t *v);
int serve_msg_bool(const struct line *l, enum serve_key k, bool *v);
int serve_msg_str(const struct line *l, enum serve_key k, char *out, size_t cap, size_t *n);

/* ---- serve_proto.c ---- */
void serve_respond_error(struct server *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void serve_respond_session(struct server *sv, struct sess *s);
bool serve_reading(const struct server *sv);
/* Bytes read from stdin, appended to the line buffer (at most what
 * line_max leaves room for). */
void serve_feed(struct server *sv, const char *p, size_t n);
/* One turn of the loop but its waiting: forget what expired, answer the
 * waiting call if it is due, answer the next complete line.  true when a
 * line was answered (turn again at once). */
bool serve_step(struct server *sv, int64_t now);
/* true when the loop is over: stdin read to its end and every line
 * answered, or the server must stop now. */
bool serve_done(const struct server *sv);

/* ---- serve_ops.c ---- */
void serve_op_start(struct server *sv, const struct line *l);
void serve_op_continue(struct server *sv, const struct line *l);
void serve_op_stop(struct server *sv, const struct line *l, bool all);
void serve_op_list(struct server *sv);

#endif
