/* t.h - the tests' reporting: one line per check, a closing tally.
 *
 * `ok N - what` / `not ok N - what`, and at the end `N passed, N failed`
 * (plus `, N skipped`).  A skip is printed as `ok N - # SKIP why` and counted
 * apart, never as a pass.  t_done() returns the exit status: 1 if any check
 * failed, 0 otherwise. */
#ifndef SANDPROOF_T_H
#define SANDPROOF_T_H

#include <stdarg.h>
#include <stdio.h>

static int t_n, t_pass, t_fail, t_skip;

__attribute__((format(printf, 2, 3), unused))
static int t_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	t_n++;
	printf("%sok %d - ", cond ? "" : "not ", t_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (cond)
		t_pass++;
	else
		t_fail++;
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void t_skipped(const char *fmt, ...)
{
	va_list ap;

	t_n++;
	t_skip++;
	printf("ok %d - # SKIP ", t_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

__attribute__((unused))
static int t_done(void)
{
	printf("%d passed, %d failed", t_pass, t_fail);
	if (t_skip)
		printf(", %d skipped", t_skip);
	printf("\n");
	return t_fail ? 1 : 0;
}

#endif
