/* runlog.h - recording one (scenario, runner) result: the database row
 * with its evidence, the printed line, the tally and the progress bar. */
#ifndef SANDPROOF_RUNLOG_H
#define SANDPROOF_RUNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sandproof/store.h"
#include "scen.h"

/* One failing result, for the impact summary. */
struct runlog_fail {
	char *runner, *scenario;
	int impact;              /* index in store_impacts[] */
	uint64_t order;          /* the summary lists fails in this order: the
				    tally's done count when recorded, which
				    run --jobs sets to the pair's place */
};

struct tally {
	unsigned pass, fail, skip, unsupported, inconclusive, error, total, done;
	unsigned lost;           /* results the database refused */
	char lost_why[512];      /* the first refusal's message */
	struct runlog_fail *fails; /* owned; freed by runlog_impact_summary() */
	size_t n_fails, cap_fails;
	bool fails_lost;         /* out of memory: the summary is incomplete */
};

/* Record the result JSON of one pair (a malformed one becomes verdict
 * error), print its line on echo (NULL: quiet), count it (a fail with its
 * impact class, for runlog_impact_summary).  observed (may be NULL) receives
 * "verdict|impact|observed|reason" (impact "-" unless a fail).  0, or -EIO when the database refused it: then
 * it says so on stderr and counts it in t->lost (the line still prints). */
int runlog_record(struct store *db, int64_t run_id, const struct scen *s,
		  const char *runner, uint64_t seed, const char *json,
		  struct tally *t, bool tty, FILE *echo, char *observed, size_t obslen);

/* runlog_record with the line kept, not printed (run --jobs prints the
 * lines in the catalogue's order, the results recorded as they come):
 * *line is what runlog_record would print on echo, malloc'd (NULL when
 * out of memory). */
int runlog_record_deferred(struct store *db, int64_t run_id, const struct scen *s,
			   const char *runner, uint64_t seed, const char *json,
			   struct tally *t, char **line);

/* After a run: when any result was lost, says on stderr how many, where and
 * why, and returns 1; else 0. */
int runlog_lost_report(const struct tally *t, const char *dbpath);

/* Prints on f (NULL: nothing) the failing results per runner, escapes
 * first, then exposure, hardening, reporting, fidelity, residue, each with its
 * scenarios (each once, "id xN" when it failed N times); then frees t's list
 * of fails. */
void runlog_impact_summary(struct tally *t, FILE *f);

/* For explore, whose violations are fails of the scenarios it wrote (one
 * per distinct shrunk program): one line per runner, "R: D distinct
 * findings in V violating programs - escape 2: fs.found_a x312,
 * fs.found_b; hardening 1: ...", each distinct finding once with its count,
 * classes in report order, the most seen first; then frees t's list.  (On
 * the line the dash is U+2014 and the x U+00D7, as in runlog_impact_summary.) */
void runlog_findings_summary(struct tally *t, FILE *f);

/* On a terminal: a live line with the counts and the current scenario. */
void runlog_progress(const struct tally *t, const char *current, bool tty);

#endif
