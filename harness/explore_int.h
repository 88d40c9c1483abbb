/* explore_int.h - what explore.c and explore_jobs.c share (private to
 * `sandproof explore`). */
#ifndef SANDPROOF_EXPLORE_INT_H
#define SANDPROOF_EXPLORE_INT_H

#include <stdbool.h>

#include "runner.h"
#include "scen.h"

struct explore_opts {
	/* runner: the canonical spec its processes load (sandproof.runners),
	 * runner_name: as results are recorded; both owned by runners */
	const char *runner, *runner_name, *out;
	struct runner_set runners;
	unsigned long long budget, time_s, seed, max_ops, batch, jobs;
	int worker; /* 1..jobs in a worker process, 0 in the parent */
	bool no_shrink;
};

/* Runs the Lua driver (harness/lua/sandproof/explore/driver.lua) in this
 * process; its summary as JSON (malloc'd), or NULL after printing why.
 * check_only: only whether the runner can be used (its usage_error). */
char *explore_drive(const struct scen_paths *p, const struct explore_opts *o,
		    bool check_only);

/* POSIX only (fork; explore_jobs.c is not built for Windows, where --jobs
 * above 1 is refused).  Runs the driver in o->jobs worker processes (worker w runs programs
 * w, w + jobs, ...; each prints its own violations, a line at a time) and
 * merges their summaries (driver.merge_json); NULL after printing why.
 * An interrupt (scen_interrupt_install) is passed on to every worker,
 * each then stops after its running launch.  Every worker is waited for
 * and its temp directories swept. */
char *explore_jobs_drive(const struct scen_paths *p, const struct explore_opts *o);

#endif
