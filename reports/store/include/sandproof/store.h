/* sandproof/store.h - the results store: the one module that opens a
 * results database (DESIGN.md "Results", "Dependency rules").  The harness
 * writes through it, reports and merge read (and merge writes) through it;
 * nothing else in the tree includes sqlite3.h.
 *
 * The schema is reports/schema.sql, compiled in at build time as
 * store_schema_sql (its one copy), which the store applies to a new file.  The
 * file is in WAL mode and every write function commits before it returns,
 * one transaction each, so a harness killed by SIGKILL keeps every result
 * a store_add_result() call returned for, and the file stays consistent.
 *
 * Conventions:
 *  - Functions return 0 (or a positive row id) on success, -errno on failure;
 *    the failure's message is then in store_get_error() (store_open*: in the
 *    caller's err buffer).
 *  - Strings are NUL-terminated UTF-8 text, borrowed for the duration of the
 *    call; NULL stores SQL NULL (refused with -EINVAL where the column is
 *    NOT NULL).  Times are ISO 8601 UTC text ('2025-06-01T12:34:56.789Z');
 *    NULL for a time means "now".
 *  - Optional numbers: a negative value stores NULL (and reads back as -1).
 *  - One struct store is used by one thread at a time.  Several processes may
 *    open the same file.  Every write call (and the open) waits for a lock
 *    another process holds up to a bound (STORE_WAIT_MS, or store_open_wait's),
 *    then fails with -EBUSY, its transaction undone.  A forked
 *    child never uses its parent's handle (it opens its own); every
 *    descriptor sqlite holds is close-on-exec, so no runner or sandboxed
 *    command inherits a way to write the results. */
#ifndef SANDPROOF_STORE_H
#define SANDPROOF_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SCHEMA_VERSION 3            /* PRAGMA user_version of schema.sql */
#define STORE_APPLICATION_ID 0x53505246   /* PRAGMA application_id, 'SPRF' */
#define STORE_WAIT_MS 30000               /* default bound on waiting for a lock */
#define STORE_WAIT_MAX_S 86400            /* the largest bound the CLI accepts (--db-wait) */

/* The text of reports/schema.sql, byte for byte (generated from it at build
 * time by reports/store/schema_c.cmake). */
extern const char store_schema_sql[];

struct store;

/* A row of table run (see schema.sql for each column's meaning). */
struct store_run {
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
struct store_scenario {
	const char *id;              /* required, e.g. "net.deny.host_loopback" */
	const char *area;            /* required */
	const char *clauses;         /* required, comma list */
	const char *claim;           /* required */
	const char *file;
	const char *expect_json;     /* required, JSON */
};

/* A row of table result. */
struct store_result {
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
	const char *impact;          /* required for fail, NULL otherwise: one of
				      * store_impacts[] */
};

/* The impact classes a fail carries (docs/CONTRACT.md, "Impact classes"),
 * in the order every summary and report lists them: escape, exposure,
 * hardening, reporting, fidelity, residue.  The schema's CHECK on
 * result.impact names the same six; the harness gives Lua this list
 * (sp.impact_classes, which sandproof.impact classes by). */
#define STORE_N_IMPACTS 6
extern const char *const store_impacts[STORE_N_IMPACTS];
/* The index of class name in store_impacts[], or -1 (NULL, unknown). */
int store_impact_index(const char *name);

/* A row of table evidence (without its ids). */
struct store_evidence {
	const char *kind;            /* probe stderr outcome census traceback note */
	const char *body;            /* required */
};

/* Opens (creating the file and schema when new) the database at path for
 * writing and sets *out, which the caller closes with store_close().  Refuses,
 * with a message in err naming path, before writing anything to it: a file
 * that is not a sqlite database, is one of another application, or fails
 * PRAGMA integrity_check ("corrupt database") (-EINVAL); a schema version other than
 * STORE_SCHEMA_VERSION (-EPROTO, naming both: a newer one needs a newer
 * sandproof; an older one is not upgraded: version 1's fails carry no class
 * that could be filled in, version 2's were classed before `hardening`
 * existed, so its escapes may be hardening now); a file or directory it may not
 * read or write (-EACCES, or the errno of the failed open); a file system
 * without WAL support (-ENOTSUP). */
int store_open(const char *path, struct store **out, char *err, size_t errlen);

/* store_open() waiting up to wait_ms (0: not at all) for another process's
 * lock, at the open and in every write call, instead of STORE_WAIT_MS. */
int store_open_wait(const char *path, unsigned wait_ms, struct store **out, char *err,
		    size_t errlen);

/* The same, read-only, for reports: never creates or changes the file, and
 * refuses a missing (-ENOENT), empty or corrupt (-EINVAL) one.  Write functions on
 * such a handle fail with -EBADF. */
int store_open_readonly(const char *path, struct store **out, char *err, size_t errlen);

/* Closes db and frees it; NULL is a no-op.  Returns 0 or -errno (the handle
 * is freed either way). */
int store_close(struct store *db);

/* The message of the last failure on db ("" if none).  Owned by db, valid
 * until its next call. */
const char *store_get_error(const struct store *db);

/* Inserts a run; returns its id (> 0) or -errno. */
int64_t store_begin_run(struct store *db, const struct store_run *run);

/* Sets the run's finished_at (NULL: now).  -ENOENT for an unknown run. */
int store_finish_run(struct store *db, int64_t run_id, const char *finished_at);

/* Inserts the scenario, or replaces every column of the one with its id. */
int store_put_scenario(struct store *db, const struct store_scenario *sc);

/* Records one result and its n_ev evidence rows (ev[0] first) in one
 * transaction, committed before return: all of them or none.  Returns the
 * result id (> 0) or -errno (-EINVAL for a constraint: bad verdict or kind,
 * unknown run or scenario, missing required field). */
int64_t store_add_result(struct store *db, const struct store_result *res,
			 const struct store_evidence *ev, size_t n_ev);

/* Read side.  A callback returns 0 to go on; any other value stops the
 * iteration and is returned by store_read_*() (so return a negative errno
 * or a positive "found" code).  Rows and their strings are valid only during
 * the callback.  A callback may call the store_read_*() functions again. */

struct store_run_row {
	int64_t id;
	struct store_run run;
	const char *finished_at;     /* NULL: killed or still running */
};

/* A result joined with its scenario.  area, clauses and claim are NULL only
 * if the scenario row is missing (e.g. a hand-merged database). */
struct store_result_row {
	int64_t id;
	struct store_result result;
	const char *area;
	const char *clauses;
	const char *claim;
};

typedef int (*store_run_fn)(const struct store_run_row *row, void *ctx);
typedef int (*store_result_fn)(const struct store_result_row *row, void *ctx);
typedef int (*store_evidence_fn)(int64_t id, const struct store_evidence *ev, void *ctx);
typedef int (*store_scenario_fn)(const struct store_scenario *sc, void *ctx);

/* Every run, by id. */
int store_read_runs(struct store *db, store_run_fn fn, void *ctx);

/* The results of run run_id (0: of every run), by result id. */
int store_read_results(struct store *db, int64_t run_id, store_result_fn fn, void *ctx);

/* The evidence of one result, in recording order. */
int store_read_evidence(struct store *db, int64_t result_id, store_evidence_fn fn,
			void *ctx);

/* Every scenario row, by id (merge copies them from one file to another). */
int store_read_scenarios(struct store *db, store_scenario_fn fn, void *ctx);

#endif
