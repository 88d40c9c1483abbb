/* session.h - one recorded run of scenarios, as `run` and `smoke` drive it.
 *
 * A session owns what both commands do around their scenarios: the loaded
 * catalogue, the output directory and the results store in it
 * (DIR/<os>.sqlite, <os> from prims_os_name()), the run row with the
 * environment fingerprint and every scenario row, the tally of recorded
 * results, the run's end, and the lost-results policy (README.md: a result
 * the database refused makes the command exit 3).  The command keeps its
 * options, which scenarios it runs, and what it prints per result.
 *
 * Order of calls: session_init, session_load, session_open, session_begin,
 * session_record (any number), session_finish, then, after the command's
 * summary, session_exit_status.  session_close releases whatever is still
 * held and may be called at any point (a failed step); it is idempotent.
 *
 * Every message a step prints goes to stderr and starts with the session's
 * `who` ("sandproof", "sandproof smoke"); a step that fails returns the
 * command's exit status for it, 0 otherwise. */
#ifndef SANDPROOF_SESSION_H
#define SANDPROOF_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runlog.h"
#include "scen.h"

/* The documented exit codes of `run` and `smoke` (README.md, --help). */
#define SESSION_EXIT_FAILED 1   /* a verdict not in its expected set */
#define SESSION_EXIT_USAGE 2    /* bad input: --out, a corrupt or newer database, a catalogue that does not load */
#define SESSION_EXIT_INTERNAL 3 /* the run or a result could not be recorded */

struct session {
	const char *who;            /* message prefix, borrowed */
	struct scen_list scenarios; /* owned; empty until session_load */
	struct store *db;           /* owned; NULL until session_open */
	int64_t run_id;             /* 0 until session_begin */
	char dbpath[PATH_MAX];      /* DIR/<os>.sqlite, once session_open ran */
	struct tally tally;         /* every session_record, lost ones included */
};

/* An empty session whose messages start with who (borrowed). */
void session_init(struct session *s, const char *who);

/* Loads the scenarios whose id matches filter (NULL: all) into
 * s->scenarios.  0, or SESSION_EXIT_USAGE after printing scen_load_all's
 * message. */
int session_load(struct session *s, const struct scen_paths *p, const char *filter);

/* Creates the directory out when missing, checks that it is a writable
 * directory, and opens (creating) out/<os>.sqlite, waiting up to wait_s
 * seconds for another process's lock there and in every later write.
 * 0, or SESSION_EXIT_USAGE after printing "--out DIR: why" or the store's
 * refusal (which names the file). */
int session_open(struct session *s, const char *out, unsigned wait_s);

/* session_open() of out/<os><suffix>.sqlite (explore: "-explore", so its
 * runs never shadow a catalogue run's results in a report). */
int session_open_suffixed(struct session *s, const char *out, const char *suffix,
			  unsigned wait_s);

/* Records the run row (env_json: the fingerprint, a JSON object or NULL,
 * freed here in every case; runners, filter, seed: its columns) and one row
 * per loaded scenario.  A scenario row the store refuses is reported and
 * skipped (its results are then counted lost).  0, or SESSION_EXIT_INTERNAL
 * when the run row could not be recorded. */
int session_begin(struct session *s, char *env_json, const char *runners, const char *filter,
		  uint64_t seed);

/* Records one pair's result JSON through runlog_record() into the store and
 * s->tally (echo, tty, observed: as there).  0, or -EIO when the store
 * refused it (said on stderr, counted in s->tally.lost). */
int session_record(struct session *s, const struct scen *sc, const char *runner, uint64_t seed,
		   const char *json, bool tty, FILE *echo, char *observed, size_t obslen);

/* session_record through runlog_record_deferred: the line handed back in
 * *line (malloc'd, NULL when out of memory), not printed. */
int session_record_deferred(struct session *s, const struct scen *sc, const char *runner,
			    uint64_t seed, const char *json, char **line);

/* Records the run's end and closes the store and the catalogue (the tally
 * and dbpath stay).  Returns rc, or SESSION_EXIT_INTERNAL after printing
 * why when the end could not be recorded. */
int session_finish(struct session *s, int rc);

/* After the command's summary: when any result was lost, says on stderr how
 * many, where and why, and returns SESSION_EXIT_INTERNAL; else rc. */
int session_exit_status(const struct session *s, int rc);

/* Closes the store (without recording the run's end) and frees the
 * catalogue; a no-op for what is already released. */
void session_close(struct session *s);

#endif
