/* db.h - the results database: a thin sqlite3 wrapper (DESIGN.md "Results").
 *
 * The schema is reports/schema.sql; db.c holds a byte-identical copy
 * (db_schema_sql, checked by test_db) and applies it to a new file.  The
 * file is in WAL mode and every write function commits before it returns,
 * one transaction each, so a harness killed by SIGKILL keeps every result
 * a db_result_add() call returned for, and the file stays consistent.
 *
 * Conventions:
 *  - Functions return 0 (or a positive row id) on success, -errno on failure;
 *    the failure's message is then in db_last_error() (db_open*: in the
 *    caller's err buffer).
 *  - Strings are NUL-terminated UTF-8 text, borrowed for the duration of the
 *    call; NULL stores SQL NULL (refused with -EINVAL where the column is
 *    NOT NULL).  Times are ISO 8601 UTC text ('2025-06-01T12:34:56.789Z');
 *    NULL for a time means "now".
 *  - Optional numbers: a negative value stores NULL (and reads back as -1).
 *  - One struct db is used by one thread at a time.  Several processes may
 *    open the same file.  Every write call (and the open) waits for a lock
 *    another process holds up to a bound (DB_WAIT_MS, or db_open_wait's),
 *    then fails with -EBUSY, its transaction undone.  A forked
 *    child never uses its parent's handle (it opens its own); every
 *    descriptor sqlite holds is close-on-exec, so no runner or sandboxed
 *    command inherits a way to write the results. */
#ifndef SANDPROOF_DB_H
#define SANDPROOF_DB_H

#include <stddef.h>
#include <stdint.h>

#define DB_SCHEMA_VERSION 1            /* PRAGMA user_version of schema.sql */
#define DB_APPLICATION_ID 0x53505246   /* PRAGMA application_id, 'SPRF' */
#define DB_WAIT_MS 30000               /* default bound on waiting for a lock */
#define DB_WAIT_MAX_S 86400            /* the largest bound the CLI accepts (--db-wait) */

/* The text of reports/schema.sql. */
extern const char db_schema_sql[];

struct db;

/* A row of table run (see schema.sql for each column's meaning). */
struct db_run {
	const char *started_at;      /* NULL: now */
	const char *os;              /* required */
	const char *kernel;
	const char *arch;
	const char *user;
	int64_t uid;                 /* < 0: NULL */
	const char *harness_version; /* required */
	const char *git_revision;
	const char *runners;         /* required, comma list */
	int64_t seed;
	const char *filter;          /* NULL: every scenario */
	const char *env_json;        /* a JSON object, or NULL */
};

/* A row of table scenario. */
struct db_scenario {
	const char *id;              /* required, e.g. "net.deny.host_loopback" */
	const char *area;            /* required */
	const char *clauses;         /* required, comma list */
	const char *claim;           /* required */
	const char *file;
	const char *expect_json;     /* required, JSON */
};

/* A row of table result. */
struct db_result {
	int64_t run_id;
	const char *runner;          /* required */
	const char *scenario_id;     /* required, must be in table scenario */
	const char *verdict;         /* pass fail skip unsupported inconclusive error */
	const char *expected;        /* required, comma list of verdicts */
	const char *observed;
	const char *reason;
	int64_t attempts;            /* >= 0 */
	int64_t windows_hit;         /* < 0: NULL (not a race) */
	int64_t min_windows;         /* race minimum of windows_hit; < 0: NULL */
	int64_t seed;
	int64_t duration_ms;         /* < 0: NULL */
	const char *finished_at;     /* NULL: now */
};

/* A row of table evidence (without its ids). */
struct db_evidence {
	const char *kind;            /* probe stderr outcome census traceback note */
	const char *body;            /* required */
};

/* Opens (creating the file and schema when new) the database at path for
 * writing and sets *out, which the caller closes with db_close().  Refuses,
 * with a message in err naming path, before writing anything to it: a file
 * that is not a sqlite database, is one of another application, or fails
 * PRAGMA integrity_check ("corrupt database") (-EINVAL); a newer schema version than
 * DB_SCHEMA_VERSION (-EPROTO, naming both); a file or directory it may not
 * read or write (-EACCES, or the errno of the failed open); a file system
 * without WAL support (-ENOTSUP). */
int db_open(const char *path, struct db **out, char *err, size_t errlen);

/* db_open() waiting up to wait_ms (0: not at all) for another process's
 * lock, at the open and in every write call, instead of DB_WAIT_MS. */
int db_open_wait(const char *path, unsigned wait_ms, struct db **out, char *err,
		 size_t errlen);

/* The same, read-only, for reports: never creates or changes the file, and
 * refuses a missing (-ENOENT), empty or corrupt (-EINVAL) one.  Write functions on
 * such a handle fail with -EBADF. */
int db_open_readonly(const char *path, struct db **out, char *err, size_t errlen);

/* Closes db and frees it; NULL is a no-op.  Returns 0 or -errno (the handle
 * is freed either way). */
int db_close(struct db *db);

/* The message of the last failure on db ("" if none).  Owned by db, valid
 * until its next call. */
const char *db_last_error(const struct db *db);

/* Inserts a run; returns its id (> 0) or -errno. */
int64_t db_run_begin(struct db *db, const struct db_run *run);

/* Sets the run's finished_at (NULL: now).  -ENOENT for an unknown run. */
int db_run_finish(struct db *db, int64_t run_id, const char *finished_at);

/* Inserts the scenario, or replaces every column of the one with its id. */
int db_scenario_put(struct db *db, const struct db_scenario *sc);

/* Records one result and its n_ev evidence rows (ev[0] first) in one
 * transaction, committed before return: all of them or none.  Returns the
 * result id (> 0) or -errno (-EINVAL for a constraint: bad verdict or kind,
 * unknown run or scenario, missing required field). */
int64_t db_result_add(struct db *db, const struct db_result *res,
		      const struct db_evidence *ev, size_t n_ev);

/* Read side.  A callback returns 0 to go on; any other value stops the
 * iteration and is returned by db_foreach_*() (so return a negative errno
 * or a positive "found" code).  Rows and their strings are valid only during
 * the callback.  A callback may call the db_foreach_*() functions again. */

struct db_run_row {
	int64_t id;
	struct db_run run;
	const char *finished_at;     /* NULL: killed or still running */
};

/* A result joined with its scenario.  area, clauses and claim are NULL only
 * if the scenario row is missing (e.g. a hand-merged database). */
struct db_row {
	int64_t id;
	struct db_result result;
	const char *area;
	const char *clauses;
	const char *claim;
};

typedef int (*db_run_fn)(const struct db_run_row *row, void *ctx);
typedef int (*db_result_fn)(const struct db_row *row, void *ctx);
typedef int (*db_evidence_fn)(int64_t id, const struct db_evidence *ev, void *ctx);

/* Every run, by id. */
int db_foreach_run(struct db *db, db_run_fn fn, void *ctx);

/* The results of run run_id (0: of every run), by result id. */
int db_foreach_result(struct db *db, int64_t run_id, db_result_fn fn, void *ctx);

/* The evidence of one result, in recording order. */
int db_foreach_evidence(struct db *db, int64_t result_id, db_evidence_fn fn,
			void *ctx);

#endif
