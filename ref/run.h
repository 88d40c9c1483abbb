/* run.h - one run: prepare, launch, supervise, report.
 *
 * Ownership: run_execute() fills *o, which the caller frees with
 * outcome_free().  The command's process and every descendant are gone when
 * run_execute() returns (PROC-3). */
#ifndef SANDPROOF_RUN_H
#define SANDPROOF_RUN_H

#include <stdbool.h>

#include "outcome.h"
#include "request.h"

struct run_io {
	bool passthrough;   /* exec without --json: the command uses our 1/2 */
	bool stdin_inherit; /* exec: the command reads our 0, not req->stdin */
};

int run_execute(const struct request *req, const struct run_io *io,
		struct outcome *o);
void outcome_free(struct outcome *o);

#endif
