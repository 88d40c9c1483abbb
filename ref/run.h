/* run.h - one run: prepare, launch, supervise, report.
 *
 * Ownership: run_execute() fills *o, which the caller frees with
 * outcome_free().  The command's process and every descendant are gone when
 * run_execute() returns (PROC-3). */
#ifndef SANDPROOF_RUN_H
#define SANDPROOF_RUN_H

#include <stdbool.h>

#include "outcome.h"
#include "sandproof/request.h"

/* The runner's peak resident memory is at most 2 * L + RUN_RSS_BASE,
 * L = output_limit_bytes (PROC-7): output costs only the two capture
 * buffers (capture.h: resident = kept); the outcome is streamed from them.
 * RUN_RSS_BASE covers the runner itself with a request of up to 64 KiB,
 * RUN_RSS_BASE_MAX with any request (up to REQUEST_MAX_BYTES: its parsed
 * form is the largest part); test_capture measures both. */
#define RUN_RSS_BASE (16 * 1024 * 1024)
#define RUN_RSS_BASE_MAX (64 * 1024 * 1024)

struct run_io {
	bool passthrough;   /* exec without --json: the command uses our 1/2 */
	bool stdin_inherit; /* exec: the command reads our 0, not req->stdin */
	bool outcome_unread; /* no outcome is written (exec without --json):
			      * no "changes" walk, which costs a walk of every
			      * write root before and after the command */
};

int run_execute(const struct request *req, const struct run_io *io,
		struct outcome *o);
void outcome_free(struct outcome *o);

#endif
