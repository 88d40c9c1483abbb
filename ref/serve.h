/* serve.h - `sandproof-ref serve`: retained interactive sessions over JSON
 * lines on stdin/stdout (SESS-*, CONTRACT.md), one response line per
 * request line, in order.  Linux only (sess.h). */
#ifndef SANDPROOF_SERVE_H
#define SANDPROOF_SERVE_H

#include <stddef.h>
#include <stdint.h>

#define SERVE_MAX_SESSIONS 64        /* default --max-sessions */
#define SERVE_RUNNING_FLOOR 8        /* running sessions never pruned at or below */
#define SERVE_RETAIN_MS 30000        /* default --retain-ms */
#define SERVE_OUTPUT_BYTES (2u * 1024 * 1024) /* default --output-bytes */
#define SERVE_YIELD_INPUT_MAX_MS 30000   /* start, input, interrupt */
#define SERVE_YIELD_POLL_MAX_MS 300000   /* an empty poll */
#define SERVE_STOP_WAIT_MS 10000         /* stop / stop_all wait for the exit */
/* At the server's end, a worker still there this long after its SIGTERM is
 * SIGKILLed: the server exits within about this, whatever runs (SESS-8). */
#define SERVE_END_MS 500
/* A request line's bytes, its newline not counted: a 1 MiB request or 1 MiB
 * of input, escaped, and the envelope. */
#define SERVE_LINE_MAX (6u * 1024 * 1024 + 65536)

struct serve_opts {
	size_t max_sessions;
	int64_t retain_ms;
	size_t output_bytes;
};

/* Serve until stdin ends (every line answered), the caller is gone (stdin
 * hung up while a call waits: the lines already sent are answered at once;
 * stdout broken) or SIGINT/SIGTERM/SIGHUP: then every session is stopped
 * and reaped within SERVE_END_MS.  Returns the exit status: 0, or 1 on an
 * internal error (the reason on stderr). */
int serve_main(const struct serve_opts *opts);
/* The command line: options, then serve_main.  2 on a usage error. */
int serve_cli(int argc, char **argv);

#endif
