/* serve_drive.c - see serve_drive.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sess.h"
#include "jscan.h"
#include "serve_drive.h"
#include "serve_int.h"

static struct server sv;
static FILE *out;
static char *out_buf;
static size_t out_len;
static char *in;              /* everything the caller sent */
static size_t in_len, in_cap, in_off; /* in_off: what the server has read */
static bool hung_up;

static void require(bool cond, const char *what)
{
	if (cond)
		return;
	fprintf(stderr, "serve_drive: property violated: %s\n", what);
	abort();
}

void drive_begin(size_t max_sessions, size_t line_max)
{
	struct serve_opts o = {.max_sessions = max_sessions, .retain_ms = 1000,
		.output_bytes = 4096};

	fake_reset();
	out = open_memstream(&out_buf, &out_len);
	require(out && serve_init(&sv, &o, out, line_max) == 0, "setup");
	in_len = in_off = 0;
	hung_up = false;
}

void drive_input(const char *p, size_t n)
{
	if (hung_up || !n)
		return;
	if (in_len + n > in_cap) {
		in_cap = 2 * (in_len + n);
		in = realloc(in, in_cap);
		require(in != NULL, "memory");
	}
	memcpy(in + in_len, p, n);
	in_len += n;
}

/* What serve.c's poll does with stdin: read while reading, and a caller
 * gone while a call waits is a hangup; read to its end, the end of input. */
static void feed(void)
{
	if (in_off < in_len && serve_reading(&sv)) {
		size_t room = sv.line_max + 1 - sv.line_len, n = in_len - in_off;

		n = n < room ? n : room;
		n = n < 65536 ? n : 65536;
		serve_feed(&sv, in + in_off, n);
		in_off += n;
	}
	if (hung_up && sv.call.active)
		sv.ended = true;
	else if (hung_up && in_off == in_len && serve_reading(&sv))
		sv.in_eof = sv.ended = true;
}

static void check_table(void)
{
	require(sv.n <= sv.cap, "the session table holds more than its capacity");
	require(serve_count(&sv, false) <= sv.opts.max_sessions,
		"more live sessions than --max-sessions");
}

static void advance_to(int64_t t)
{
	fake_clock = t;
	for (size_t i = 0; i < sv.n; i++)
		sess_service(&sv.v[i]->s, 0, 0, 0, fake_clock);
}

/* Run the server until it waits for input that has not come, or is done. */
static void run(void)
{
	for (long guard = 0;; guard++) {
		require(guard < 10000000, "the loop makes no progress");
		feed();
		if (serve_step(&sv, fake_clock)) {
			check_table();
			continue;
		}
		if (serve_done(&sv))
			return;
		if (sv.call.active) { /* the call waits: time passes */
			int64_t w = serve_next_wake(&sv, fake_clock);

			advance_to(w > fake_clock ? w : fake_clock + 1);
		} else if (!(in_off < in_len && serve_reading(&sv)) &&
			   !(hung_up && !sv.in_eof)) {
			return;
		}
	}
}

void drive_sleep(int64_t ms)
{
	int64_t end;

	run();
	end = fake_clock + ms;
	while (fake_clock < end && !serve_done(&sv)) {
		int64_t w = serve_next_wake(&sv, fake_clock);

		advance_to(w < 0 || w >= end ? end : w > fake_clock ? w : fake_clock + 1);
		serve_step(&sv, fake_clock);
		check_table();
	}
}

void drive_hangup(void)
{
	hung_up = true;
	run();
}

/* The request lines of the input: one response each (SESS-1). */
static size_t lines_sent(void)
{
	size_t n = 0;

	for (size_t i = 0; i < in_len;) {
		const char *nl = memchr(in + i, '\n', in_len - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : in_len - i, l = len;

		if (len > sv.line_max) {
			n++;
		} else {
			if (l && in[i + l - 1] == '\r')
				l--;
			for (size_t k = 0; k < l; k++)
				if (in[i + k] != ' ' && in[i + k] != '\t' && in[i + k] != '\r') {
					n++;
					break;
				}
		}
		i += len + 1;
	}
	return n;
}

static void check_responses(void)
{
	char err[256];
	size_t n = 0;

	for (size_t i = 0; i < out_len; n++) {
		const char *nl = memchr(out_buf + i, '\n', out_len - i);

		require(nl != NULL, "a response not ended by a newline");
		require(out_buf[i] == '{' && jscan_check(out_buf + i, (size_t)(nl - out_buf) - i,
							 NULL, err, sizeof(err)) == 0,
			"a response that is not one JSON object");
		i = (size_t)(nl - out_buf) + 1;
	}
	if (n != lines_sent())
		fprintf(stderr, "serve_drive: %zu responses to %zu request lines\n", n, lines_sent());
	require(n == lines_sent(), "not one response per request line");
}

void drive_end(void)
{
	hung_up = true;
	run();
	require(serve_done(&sv), "the server did not end at the end of its input");
	/* serve_end: SIGTERM, SERVE_END_MS, then SIGKILL in sess_free */
	for (size_t i = 0; i < sv.n; i++)
		if (!sv.v[i]->s.reaped)
			sess_interrupt(&sv.v[i]->s, fake_clock);
	advance_to(fake_clock + SERVE_END_MS);
	fake_ending = true;
	serve_free(&sv);
	fclose(out);
	check_responses();
	free(out_buf);
	out_buf = NULL;
	fake_reset();
}
