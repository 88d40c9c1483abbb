/* fuzz_serve_ops.c - the protocol fuzzer, structure-aware: the input is a
 * program of (op, arg) byte pairs that a caller of `sandproof-ref serve`
 * plays, each op one valid-ish protocol line or an act of the caller:
 *   0 start     arg: kind (runs / ignores SIGTERM / exits / floods,
 *               fake_sess.c), tty, yield 0..150 ms
 *   1 continue  arg: session (of those started), input, eof, interrupt, yield
 *   2 stop      arg: session
 *   3 stop_all, 4 list
 *   5 repeat    the last line arg % 32 + 1 times (a burst, unanswered)
 *   6 sleep     arg * 100 ms before the next line (sessions end meanwhile)
 *   7 a malformed line: arg picks one family (a member named "", a name
 *               holding an allowed one, a duplicate, a fraction, an
 *               underflow, a huge session number, an escaped name, an
 *               over-long line, a bad request)
 *   8 hang up   (stdin closed now: the waiting call answered at once)
 *   9 raw       the next arg % 64 bytes of the input as one line
 * The first byte is --max-sessions (1..16).  serve_drive.h checks the
 * server; fake_sess.c the sessions. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "serve_drive.h"

static char last[768];
static size_t last_len;
static unsigned started;

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void line(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(last, sizeof(last) - 1, fmt, ap);
	va_end(ap);
	last_len = n < 0 ? 0 : (size_t)n < sizeof(last) - 1 ? (size_t)n : sizeof(last) - 2;
	last[last_len++] = '\n';
	drive_input(last, last_len);
}

static void op_start(unsigned a)
{
	static const char *const kinds[4] = {"fake-run", "fake-ignore", "fake-exit", "fake-flood"};

	line("{\"op\":\"start\",\"request\":{\"version\":1,\"command\":[\"%s\"]},\"tty\":%s,"
	     "\"yield_ms\":%u}", kinds[a % 4], a & 4 ? "true" : "false", (a >> 3 & 3) * 50);
	started++;
}

static void op_continue(unsigned a)
{
	unsigned id = started ? 1 + a % (started + 1) : 1;

	if (a & 0x80)
		line("{\"op\":\"continue\",\"session\":%u,\"interrupt\":true,\"yield_ms\":%u}", id,
		     (a >> 5 & 3) * 100);
	else
		line("{\"op\":\"continue\",\"session\":%u,\"input\":\"%s\",\"eof\":%s,\"yield_ms\":%u}",
		     id, a & 0x10 ? "x\\n" : "", a & 0x20 ? "true" : "false", (a >> 6 & 1) * 300000);
}

static void op_malformed(unsigned a)
{
	static const char *const bad[] = {
		"{\"op\":\"list\",\"\":0}",
		"{\"op\":\"continue\",\"session\":1,\"input eof\":true}",
		"{\"op\":\"start\",\"request\":{\"version\":1,\"command\":[\"fake-run\"]},\"tty yield_ms\":1}",
		"{\"op\":\"stop\",\"session\":1,\"session\":2}",
		"{\"op\":\"continue\",\"session\":1.0}",
		"{\"op\":\"continue\",\"session\":1,\"yield_ms\":1e-400}",
		"{\"op\":\"continue\",\"session\":18446744073709551616}",
		"{\"\\u006fp\":\"list\",\"o\\u0070\":\"list\"}",
		"{\"op\":\"start\",\"request\":{\"version\":1,\"command\":[\"x\"],\"timeout_ms\":1e-400}}",
		"{\"op\":\"list\"",
		"[\"op\",\"list\"]",
		"{\"op\":\"start\"}",
	};
	char big[600];

	if (a % 13 == 12) {
		memset(big, ' ', sizeof(big) - 1);
		memcpy(big, "{\"op\":\"list\"", 12);
		big[sizeof(big) - 2] = '}';
		big[sizeof(big) - 1] = '\0';
		line("%s", big);
		return;
	}
	line("%s", bad[a % 13 % (sizeof(bad) / sizeof(bad[0]))]);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t i = 1;

	if (size < 1)
		return 0;
	drive_begin(1 + data[0] % 16, 512);
	last_len = 0;
	started = 0;
	while (i + 1 < size) {
		unsigned op = data[i] % 10, a = data[i + 1];

		i += 2;
		switch (op) {
		case 0: op_start(a); break;
		case 1: op_continue(a); break;
		case 2: line("{\"op\":\"stop\",\"session\":%u}", started ? 1 + a % started : 1); break;
		case 3: line("{\"op\":\"stop_all\"}"); break;
		case 4: line("{\"op\":\"list\"}"); break;
		case 5:
			for (unsigned k = 0; k <= a % 32; k++)
				drive_input(last, last_len);
			break;
		case 6: drive_sleep((int64_t)a * 100); break;
		case 7: op_malformed(a); break;
		case 8: drive_hangup(); break;
		default: {
			size_t n = a % 64 < size - i ? a % 64 : size - i;

			drive_input((const char *)data + i, n);
			drive_input("\n", 1);
			i += n;
		}
		}
	}
	drive_end();
	return 0;
}
