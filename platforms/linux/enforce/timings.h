/* timings.h - where a launch spends its time, for `sandproof-ref exec
 * --timings` (bench/README.md).  Off by default: then every call below is
 * one branch and nothing is written anywhere.
 *
 * The runner turns it on when its environment has SANDPROOF_REF_TIMINGS=1
 * (`exec --timings` sets it).  Marks are CLOCK_MONOTONIC stamps with a
 * static label, kept in one shared anonymous page mapped before the
 * sandbox is cloned, so the sandbox's pid 1 and the command's process
 * (copies of the runner until execve) add their marks to the same table;
 * tm_report() prints it, sorted by time, to the runner's stderr.  Marks
 * beyond the table are dropped and counted.  Never a figure a test checks. */
#ifndef SANDPROOF_TIMINGS_H
#define SANDPROOF_TIMINGS_H

#include <stdio.h>

/* Map the table when the environment asks for timings; idempotent.  Call
 * it in the runner before the first mark (platform_supervisor_init). */
void tm_init(void);

/* Record label (a string literal: only the pointer is kept) now. */
void tm_mark(const char *label);

/* Print every mark with its offset from the first and from the previous
 * one to out, then forget them.  Nothing when timings are off. */
void tm_report(FILE *out);

#endif
