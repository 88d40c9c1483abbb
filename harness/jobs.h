/* jobs.h - `run --jobs N`: the pairs of a run N at a time.
 *
 * Each pair runs in a keeper of its own, `sandproof __pair FILE RUNNER SEED
 * TIMEOUT_S REF PROBE HARNESS` (child.h), which does for its one pair what
 * `--jobs 1` does in the harness itself (scen_run_pair: the scenario process
 * under its timeout, then its whole tree killed and its temp directories
 * removed) and writes the result on its stdout.  The keeper is a child
 * subreaper, so everything its pair starts stays below it whatever it does,
 * and the harness starts it with proc.h's tree_only: one keeper's end, kill
 * or count never touches another's.  The keeper dies with the harness
 * (SIGKILL), and with it its scenario process (which dies with its
 * parent), as under `--jobs 1`.
 *
 * Scheduling, one repeat round at a time: the pairs of the scenarios that
 * declare `exclusive` first, each alone (no other keeper alive while it
 * runs), then the others, at most N at once, in the catalogue's order.
 * One writer: the harness records each result as its keeper ends (one
 * transaction each, as under --jobs 1) and prints the result lines in the
 * order `--jobs 1` prints them.
 *
 * An interrupt (SIGINT, SIGTERM, SIGHUP) starts nothing more and stops
 * every keeper: each gets SIGTERM (where the OS delivers only SIGKILL to
 * one process, SIGKILL) and ends its pair as `--jobs 1` ends the running
 * one; a keeper still there after JOBS_STOP_MS is killed with its tree.
 * Results that came are recorded and printed; then every process left below
 * the harness is killed and the temp directories of killed keepers' pairs
 * removed. */
#ifndef SANDPROOF_JOBS_H
#define SANDPROOF_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "runner.h"
#include "scen.h"
#include "session.h"

#define JOBS_MAX 64         /* --jobs N: 1..JOBS_MAX */
#define JOBS_STOP_MS 15000  /* an interrupted keeper's time to end its pair */
#define JOBS_MARGIN_S 60    /* a keeper's bound beyond its pair's timeout */

/* What `run --jobs N` runs. */
struct jobs_plan {
	const struct scen_paths *paths;
	const struct runner_set *runners; /* each runs under timeout * its scale */
	unsigned timeout;          /* --timeout, or the default */
	uint64_t seed;             /* round k runs with seed + k */
	unsigned long long repeat;
	unsigned jobs;             /* 2..JOBS_MAX */
};

/* Runs every (round, scenario, runner) of ss->scenarios as above, recording
 * each result in ss.  Returns when all ran, or after an interrupt once every
 * keeper is gone (scen_interrupted() then names the signal). */
void jobs_run(struct session *ss, const struct jobs_plan *p);

/* `sandproof __pair FILE RUNNER SEED TIMEOUT_S REF PROBE HARNESS`: the
 * keeper.  Exit 0 (its result on stdout), 2 (not started by a harness, bad
 * arguments), 128 + the signal when interrupted (no result). */
int jobs_pair_main(int argc, char **argv);

#endif
