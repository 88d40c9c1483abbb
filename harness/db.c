/* db.c - the results database: a thin sqlite3 wrapper (see db.h).
 *
 * Fossil's way with sqlite: every statement is prepared once with named
 * parameters (:name), bound through db_bind_*(), run by db_step(); every
 * write call is one transaction and db_tx_end() is the only function that
 * commits.  Reads prepare their own statements so they nest. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

/* reports/schema.sql, byte for byte: test_db compares the two, so edit both
 * together (and raise DB_SCHEMA_VERSION with user_version). */
const char db_schema_sql[] =
	"-- reports/schema.sql - the sandproof results database, one file per OS\n"
	"-- (<out>/<os>.sqlite, e.g. sandproof-out/linux.sqlite).\n"
	"--\n"
	"-- harness/db.c carries a byte-identical copy of this text (test_db checks it)\n"
	"-- and runs it once, in one transaction, on a new database.  Reports, diff,\n"
	"-- merge and ad-hoc queries rely on the table and column names below: change\n"
	"-- or drop none of them without raising user_version.\n"
	"--\n"
	"-- Conventions:\n"
	"--   times        ISO 8601 UTC text with milliseconds, '2025-06-01T12:34:56.789Z'\n"
	"--                (sortable as text; julianday() and strftime() read it)\n"
	"--   comma list   names joined by ',' without spaces, e.g. 'ref,none'\n"
	"--   NULL         unknown or not applicable, never an empty string by design\n"
	"--   verdicts     pass, fail, skip, unsupported, inconclusive, error\n"
	"--\n"
	"-- The harness opens the file in WAL mode and commits one transaction per\n"
	"-- result (with its evidence), so a run killed at any point leaves a database\n"
	"-- that passes PRAGMA integrity_check and holds every finished result.\n"
	"\n"
	"PRAGMA application_id = 1397772870; -- 0x53505246, 'SPRF': a sandproof results database\n"
	"PRAGMA user_version = 1;            -- schema version; a harness refuses newer ones\n"
	"\n"
	"-- One invocation of the harness (sandproof run or smoke) on one machine.\n"
	"CREATE TABLE run (\n"
	"\tid              INTEGER PRIMARY KEY, -- run number, assigned by sqlite\n"
	"\tstarted_at      TEXT NOT NULL,       -- when the run began\n"
	"\tfinished_at     TEXT,                -- when it ended; NULL: killed, or still running\n"
	"\tos              TEXT NOT NULL,       -- 'linux', 'macos' or 'windows'\n"
	"\tkernel          TEXT,                -- kernel release (uname -r)\n"
	"\tarch            TEXT,                -- machine (uname -m), e.g. 'x86_64'\n"
	"\tuser            TEXT,                -- name of the user the harness ran as\n"
	"\tuid             INTEGER,             -- its numeric uid, 0 for root; NULL where none\n"
	"\tharness_version TEXT NOT NULL,       -- sandproof version, e.g. '0.1.0'\n"
	"\tgit_revision    TEXT,                -- git revision of the suite; NULL if unknown\n"
	"\trunners         TEXT NOT NULL,       -- comma list of the runners exercised\n"
	"\tseed            INTEGER NOT NULL,    -- the run's base random seed (--seed)\n"
	"\tfilter          TEXT,                -- scenario id glob (--filter); NULL: all\n"
	"\tenv_json        TEXT                 -- environment fingerprint, a JSON object:\n"
	"\t\tCHECK (env_json IS NULL OR json_valid(env_json))\n"
	"\t-- {\"userns\": {sysctl name: value, ...}  user-namespace sysctls and AppArmor\n"
	"\t--                                       knobs, e.g. \"kernel.unprivileged_userns_clone\"\n"
	"\t--  \"landlock_abi\": 7,                   0 when Landlock is unavailable\n"
	"\t--  \"seccomp_notify\": true,              SECCOMP_RET_USER_NOTIF usable\n"
	"\t--  \"runners\": {name: version, ...},     version string each runner reported\n"
	"\t--  \"timeout_s\": {name: seconds, ...}}   per-scenario timeout of each runner (run only)\n"
	");\n"
	"\n"
	"-- One scenario of the catalogue (scenarios/<area>/<name>.lua), as last run:\n"
	"-- the harness upserts it before recording a result for it.\n"
	"CREATE TABLE scenario (\n"
	"\tid          TEXT PRIMARY KEY NOT NULL, -- scenario id, e.g. 'net.deny.host_loopback'\n"
	"\tarea        TEXT NOT NULL,             -- contract area, e.g. 'fs', 'net', 'meta', 'proc'\n"
	"\tclauses     TEXT NOT NULL,             -- comma list of contract clause ids, e.g. 'NET-1,NET-2'\n"
	"\tclaim       TEXT NOT NULL,             -- the one claim the scenario checks, one sentence\n"
	"\tfile        TEXT,                      -- its file relative to the suite root\n"
	"\texpect_json TEXT NOT NULL              -- expected outcome sets per platform, a JSON object:\n"
	"\t\tCHECK (json_valid(expect_json))    -- {\"linux\": [\"denied\"], \"macos\": [\"denied\"]}\n"
	");\n"
	"\n"
	"-- One scenario run against one runner within one run.\n"
	"CREATE TABLE result (\n"
	"\tid          INTEGER PRIMARY KEY,  -- result number, in recording order\n"
	"\trun_id      INTEGER NOT NULL      -- the run it belongs to\n"
	"\t\tREFERENCES run(id) ON DELETE CASCADE,\n"
	"\trunner      TEXT NOT NULL,        -- runner name, e.g. 'ref', 'none', 'bwrap'\n"
	"\tscenario_id TEXT NOT NULL         -- the scenario run\n"
	"\t\tREFERENCES scenario(id),\n"
	"\tverdict     TEXT NOT NULL         -- what the harness concluded\n"
	"\t\tCHECK (verdict IN ('pass', 'fail', 'skip', 'unsupported', 'inconclusive', 'error')),\n"
	"\texpected    TEXT NOT NULL,        -- comma list of the outcomes expected on this OS\n"
	"\tobserved    TEXT,                 -- the outcome the scenario reported, in its words,\n"
	"\t                                  -- e.g. 'connect 127.0.0.1:8080: ECONNREFUSED'\n"
	"\treason      TEXT,                 -- why skip, unsupported, inconclusive or error;\n"
	"\t                                  -- NULL for pass and fail\n"
	"\tattempts    INTEGER NOT NULL      -- tries made: race iterations or hold positions\n"
	"\t\tCHECK (attempts >= 0),        -- swept; 1 for a plain scenario\n"
	"\twindows_hit INTEGER               -- attempts in which the race window was observed\n"
	"\t\tCHECK (windows_hit >= 0),     -- open; NULL when the scenario is not a race\n"
	"\tmin_windows INTEGER               -- the race's stated power: windows_hit below this\n"
	"\t\tCHECK (min_windows >= 0),     -- makes the verdict inconclusive; NULL: not a race\n"
	"\tseed        INTEGER NOT NULL,     -- the seed this result used (replays it)\n"
	"\tduration_ms INTEGER               -- wall time of the scenario in milliseconds\n"
	"\t\tCHECK (duration_ms >= 0),\n"
	"\tfinished_at TEXT NOT NULL         -- when the verdict was reached\n"
	");\n"
	"CREATE INDEX result_by_run ON result(run_id);\n"
	"CREATE INDEX result_by_scenario_runner ON result(scenario_id, runner);\n"
	"\n"
	"-- What a result rests on, in recording order (evidence.id ascending).\n"
	"CREATE TABLE evidence (\n"
	"\tid        INTEGER PRIMARY KEY, -- evidence number, in recording order\n"
	"\tresult_id INTEGER NOT NULL     -- the result it supports\n"
	"\t\tREFERENCES result(id) ON DELETE CASCADE,\n"
	"\tkind      TEXT NOT NULL        -- probe: probe JSON lines; stderr: stderr tail;\n"
	"\t\tCHECK (kind IN ('probe', 'stderr', 'outcome', 'census', 'traceback', 'note')),\n"
	"\t                               -- outcome: the runner's outcome JSON; census: a\n"
	"\t                               -- residue diff; traceback: Lua error and traceback;\n"
	"\t                               -- note: free text from the scenario\n"
	"\tbody      TEXT NOT NULL        -- the evidence itself, as text\n"
	");\n"
	"CREATE INDEX evidence_by_result ON evidence(result_id);\n";

#define DB_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* Prepared once per handle; the transaction statements come first because
 * creating a new database's schema needs them before the tables exist. */
enum {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_TX_N,
	ST_RUN_BEGIN = ST_TX_N,
	ST_RUN_FINISH,
	ST_SCENARIO_PUT,
	ST_RESULT_ADD,
	ST_EVIDENCE_ADD,
	ST_N
};

static const char *const db_sql[ST_N] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_RUN_BEGIN] =
		"INSERT INTO run (started_at, os, kernel, arch, user, uid,"
		" harness_version, git_revision, runners, seed, filter, env_json)"
		" VALUES (coalesce(:started_at, " DB_NOW "), :os, :kernel, :arch,"
		" :user, :uid, :harness_version, :git_revision, :runners, :seed,"
		" :filter, :env_json)",
	[ST_RUN_FINISH] =
		"UPDATE run SET finished_at = coalesce(:finished_at, " DB_NOW ")"
		" WHERE id = :id",
	[ST_SCENARIO_PUT] =
		"INSERT INTO scenario (id, area, clauses, claim, file, expect_json)"
		" VALUES (:id, :area, :clauses, :claim, :file, :expect_json)"
		" ON CONFLICT (id) DO UPDATE SET area = excluded.area,"
		" clauses = excluded.clauses, claim = excluded.claim,"
		" file = excluded.file, expect_json = excluded.expect_json",
	[ST_RESULT_ADD] =
		"INSERT INTO result (run_id, runner, scenario_id, verdict, expected,"
		" observed, reason, attempts, windows_hit, min_windows, seed,"
		" duration_ms, finished_at)"
		" VALUES (:run_id, :runner, :scenario_id, :verdict, :expected,"
		" :observed, :reason, :attempts, :windows_hit, :min_windows, :seed,"
		" :duration_ms, coalesce(:finished_at, " DB_NOW "))",
	[ST_EVIDENCE_ADD] =
		"INSERT INTO evidence (result_id, kind, body)"
		" VALUES (:result_id, :kind, :body)",
};

struct db {
	sqlite3 *h;
	int readonly;
	int in_tx;               /* between db_tx_begin() and db_tx_end() */
	unsigned wait_ms;        /* how long a write waits for another's lock */
	sqlite3_stmt *st[ST_N];  /* NULL on a read-only handle */
	char err[512];           /* the last failure, for db_last_error() */
};

/* ---- errors ------------------------------------------------------------- */

/* The -errno for a sqlite result code.  Open and I/O failures carry the
 * errno of the system call that failed, when sqlite recorded one. */
static int db_errno(sqlite3 *h, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_READONLY:
		return -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_ERROR:
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
	case SQLITE_FORMAT:
		return -EINVAL;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		sys = h ? sqlite3_system_errno(h) : 0;
		if (sys > 0)
			return -sys;
		return (rc & 0xff) == SQLITE_CANTOPEN ? -EACCES : -EIO;
	default:
		return -EIO;
	}
}

/* Records a message in db->err and returns r (a -errno). */
__attribute__((format(printf, 3, 4)))
static int db_fail(struct db *db, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof db->err, fmt, ap);
	va_end(ap);
	return r;
}

/* The failure of a sqlite call: "<what>: <sqlite's message>".  A lock held
 * past our bound says how long we waited. */
static int db_sqlfail(struct db *db, int rc, const char *what)
{
	int r = db_errno(db->h, rc);

	if ((rc & 0xff) == SQLITE_BUSY)
		return db_fail(db, -EBUSY,
			       "%s: database is locked by another process (waited %g s)",
			       what, db->wait_ms / 1000.0);
	return db_fail(db, r ? r : -EIO, "%s: %s", what,
		       db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
}

const char *db_last_error(const struct db *db)
{
	return db ? db->err : "no database";
}

/* ---- statements and parameters ------------------------------------------ */

/* Looks a named parameter up; a missing name is a bug in this file. */
static int db_param(struct db *db, sqlite3_stmt *st, const char *name)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i == 0)
		return db_fail(db, -EINVAL, "internal: no parameter %s in: %s",
			       name, sqlite3_sql(st));
	return i;
}

/* Binds text (NULL: SQL NULL).  SQLITE_STATIC: the caller's string outlives
 * the statement's use, which db_step() ends by clearing the bindings. */
static int db_bind_text(struct db *db, sqlite3_stmt *st, const char *name,
			const char *v)
{
	int i = db_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC)
	       : sqlite3_bind_null(st, i);
	return rc == SQLITE_OK ? 0 : db_sqlfail(db, rc, name);
}

static int db_bind_int(struct db *db, sqlite3_stmt *st, const char *name,
		       int64_t v)
{
	int i = db_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = sqlite3_bind_int64(st, i, v);
	return rc == SQLITE_OK ? 0 : db_sqlfail(db, rc, name);
}

/* An optional number: negative stores NULL. */
static int db_bind_opt(struct db *db, sqlite3_stmt *st, const char *name,
		       int64_t v)
{
	int i = db_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = v < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
	return rc == SQLITE_OK ? 0 : db_sqlfail(db, rc, name);
}


/* Runs a write statement to completion, then resets it and clears its
 * bindings, so no later call can see this call's (borrowed) strings. */
static int db_step(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st), r = 0;

	if (rc != SQLITE_DONE)
		r = db_sqlfail(db, rc, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r;
}

/* One integer from a one-row query (a pragma, a count). */
static int db_int(struct db *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		r = db_sqlfail(db, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* ---- transactions ------------------------------------------------------- */

/* Starts the transaction of one write call.  IMMEDIATE takes the write lock
 * now, so a concurrent writer makes us wait here (busy timeout) instead of
 * failing halfway through our statements. */
static int db_tx_begin(struct db *db)
{
	int r;

	if (db->in_tx)
		return db_fail(db, -EINVAL, "internal: nested transaction");
	db->err[0] = 0;
	r = db_step(db, db->st[ST_BEGIN], "begin");
	if (r == 0)
		db->in_tx = 1;
	return r;
}

/* Ends the transaction db_tx_begin() started: commits when r is 0, else rolls
 * back.  The only place that commits.  When it returns 0 the transaction is
 * in the WAL file, so it survives the death of this process (not a power
 * loss: synchronous=NORMAL syncs at checkpoints only).  Returns r, or the
 * commit's failure, after which nothing of the transaction remains. */
static int db_tx_end(struct db *db, int r)
{
	char keep[sizeof db->err];

	if (!db->in_tx)
		return r;
	db->in_tx = 0;
	if (r == 0) {
		r = db_step(db, db->st[ST_COMMIT], "commit");
		if (r == 0)
			return 0;
	}
	/* A failed COMMIT may leave the transaction open; never let a later
	 * call commit half of this one. */
	if (!sqlite3_get_autocommit(db->h)) {
		memcpy(keep, db->err, sizeof keep);
		db_step(db, db->st[ST_ROLLBACK], "rollback");
		memcpy(db->err, keep, sizeof keep);
	}
	return r;
}

static int db_writable(struct db *db)
{
	if (!db)
		return -EINVAL;
	if (db->readonly)
		return db_fail(db, -EBADF, "database opened read-only");
	return 0;
}

/* ---- open and close ----------------------------------------------------- */

/* Reads the header fields that say whose database this is.  *fresh: an
 * empty database, to be given our schema. */
static int db_identify(struct db *db, int *fresh)
{
	int64_t app = 0, ver = 0, n = 0;
	int r;

	r = db_int(db, "PRAGMA application_id", &app);
	if (r == 0)
		r = db_int(db, "PRAGMA user_version", &ver);
	if (r == 0)
		r = db_int(db, "SELECT count(*) FROM sqlite_master", &n);
	if (r == -EINVAL) {
		char why[sizeof db->err];
		const char *colon = strchr(db->err, ':');   /* "<sql>: <why>" */

		snprintf(why, sizeof why, "%s", colon ? colon + 2 : "unreadable header");
		if (sqlite3_errcode(db->h) == SQLITE_CORRUPT)
			return db_fail(db, r, "corrupt database (%s); refusing to use it", why);
		return db_fail(db, r, "not a sqlite database (%s)", why);
	}
	if (r)
		return r;
	*fresh = app == 0 && ver == 0 && n == 0;
	if (*fresh)
		return 0;
	if (app != DB_APPLICATION_ID)
		return db_fail(db, -EINVAL,
			       "not a sandproof results database (application_id %#llx, expected %#x)",
			       (unsigned long long)app, DB_APPLICATION_ID);
	if (ver > DB_SCHEMA_VERSION)
		return db_fail(db, -EPROTO,
			       "schema version %lld is newer than this sandproof's %d; use a newer sandproof or another database",
			       (long long)ver, DB_SCHEMA_VERSION);
	if (ver < DB_SCHEMA_VERSION)
		return db_fail(db, -EPROTO,
			       "schema version %lld is older than this sandproof's %d and cannot be upgraded",
			       (long long)ver, DB_SCHEMA_VERSION);
	return 0;
}

/* Refuses a database that fails PRAGMA integrity_check, before anything is
 * written to it: appending to a corrupt file can lose what it holds, and a
 * report from one can show what was never recorded.  The full check (not
 * quick_check) also compares each index with its table, which the reports'
 * queries rely on; it reads the whole file once (about 0.5 s for 200 MB). */
static int db_check(struct db *db)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0, n = 0;
	char first[256] = "";

	rc = sqlite3_prepare_v2(db->h, "PRAGMA integrity_check(10)", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(st, 0);

		if (n++ == 0)
			snprintf(first, sizeof first, "%s", line ? line : "?");
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_OK) {
		r = db_sqlfail(db, rc, "integrity_check");
		if (r == -EINVAL)
			r = db_fail(db, r, "corrupt database (integrity_check: %s); refusing to use it",
				    sqlite3_errmsg(db->h));
	} else if (n != 1 || strcmp(first, "ok") != 0) {
		r = db_fail(db, -EINVAL,
			    "corrupt database (integrity_check: %s%s); refusing to use it",
			    first, n > 1 ? ", ..." : "");
	}
	sqlite3_finalize(st);
	return r;
}

/* Gives an empty database our schema.  Under the write lock the file is
 * identified again: another process may have created it since our look. */
static int db_create(struct db *db)
{
	char *msg = NULL;
	int64_t ver = 0;
	int fresh = 0, r, rc;

	r = db_tx_begin(db);
	if (r)
		return r;
	r = db_identify(db, &fresh);
	if (r == 0 && fresh) {
		rc = sqlite3_exec(db->h, db_schema_sql, NULL, NULL, &msg);
		if (rc != SQLITE_OK)
			r = db_fail(db, db_errno(db->h, rc) ?: -EIO, "schema: %s",
				    msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
	}
	if (r == 0 && fresh)
		r = db_int(db, "PRAGMA user_version", &ver);
	if (r == 0 && fresh && ver != DB_SCHEMA_VERSION)
		r = db_fail(db, -EPROTO,
			    "internal: schema.sql sets user_version %lld, db.h says %d",
			    (long long)ver, DB_SCHEMA_VERSION);
	return db_tx_end(db, r);
}

/* Prepares statements [from, to).  A database whose tables lack a column
 * we write is refused here, at open, not at its first result. */
static int db_prepare(struct db *db, int from, int to)
{
	int i, rc;

	for (i = from; i < to; i++) {
		rc = sqlite3_prepare_v3(db->h, db_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL);
		if (rc != SQLITE_OK)
			return db_sqlfail(db, rc, "schema does not match");
	}
	return 0;
}

/* Everything after sqlite3_open_v2(); the order matters: a file is
 * identified (read only) before anything is written to it, so a foreign or
 * newer database is refused untouched. */
static int db_setup(struct db *db)
{
	char *msg = NULL;
	int fresh = 0, r, rc;
	sqlite3_stmt *st = NULL;
	const char *mode;

	sqlite3_busy_timeout(db->h, (int)db->wait_ms);
	r = db_identify(db, &fresh);
	if (r == 0 && !fresh)
		r = db_check(db);
	if (r)
		return r;
	if (db->readonly)
		return fresh ? db_fail(db, -EINVAL, "empty, not a sandproof results database") : 0;
	if (sqlite3_db_readonly(db->h, "main") == 1)
		return db_fail(db, -EACCES, "not writable");

	/* WAL: a commit is one append to the -wal file, so a process killed at
	 * any instant leaves either the whole transaction or none of it. */
	rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode = WAL", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = db_sqlfail(db, rc, "journal_mode");
		sqlite3_finalize(st);
		return r;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (!mode || strcmp(mode, "wal") != 0)
		r = db_fail(db, -ENOTSUP, "cannot use WAL mode here (journal_mode %s)",
			    mode ? mode : "?");
	sqlite3_finalize(st);
	if (r)
		return r;
	rc = sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
			  NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		r = db_fail(db, db_errno(db->h, rc) ?: -EIO, "pragma: %s",
			    msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return r;
	}
	r = db_prepare(db, 0, ST_TX_N);
	if (r == 0 && fresh)
		r = db_create(db);
	if (r == 0)
		r = db_prepare(db, ST_TX_N, ST_N);
	return r;
}

static int db_open_mode(const char *path, int readonly, unsigned wait_ms,
			struct db **out, char *err, size_t errlen)
{
	struct db *db;
	int flags, rc, r;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (!path || !*path) {
		snprintf(err, errlen, "database: empty path");
		return -EINVAL;
	}
	db = calloc(1, sizeof *db);
	if (!db) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	db->readonly = readonly;
	db->wait_ms = wait_ms > INT_MAX ? INT_MAX : wait_ms;
	flags = readonly ? SQLITE_OPEN_READONLY
			 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &db->h, flags, NULL);
	if (rc != SQLITE_OK) {
		r = db_sqlfail(db, rc, "cannot open");
		if (r == -EACCES || r == -ENOENT || r == -EISDIR)
			snprintf(db->err, sizeof db->err, "cannot open: %s", strerror(-r));
	} else {
		r = db_setup(db);
	}
	if (r) {
		snprintf(err, errlen, "%s: %s", path, db->err);
		db_close(db);
		return r;
	}
	*out = db;
	return 0;
}

int db_open(const char *path, struct db **out, char *err, size_t errlen)
{
	return db_open_mode(path, 0, DB_WAIT_MS, out, err, errlen);
}

int db_open_wait(const char *path, unsigned wait_ms, struct db **out, char *err,
		 size_t errlen)
{
	return db_open_mode(path, 0, wait_ms, out, err, errlen);
}

int db_open_readonly(const char *path, struct db **out, char *err, size_t errlen)
{
	return db_open_mode(path, 1, DB_WAIT_MS, out, err, errlen);
}

int db_close(struct db *db)
{
	int i, rc;

	if (!db)
		return 0;
	for (i = 0; i < ST_N; i++)
		sqlite3_finalize(db->st[i]);
	/* close_v2 always releases the handle; an open transaction (there is
	 * none outside a write call) would be rolled back. */
	rc = sqlite3_close_v2(db->h);
	free(db);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/* ---- writes --------------------------------------------------------------- */

int64_t db_run_begin(struct db *db, const struct db_run *run)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	int r;

	r = db_writable(db);
	if (r)
		return r;
	if (!run)
		return db_fail(db, -EINVAL, "run: NULL");
	st = db->st[ST_RUN_BEGIN];
	r = db_tx_begin(db);
	if (r)
		return r;
	r = db_bind_text(db, st, ":started_at", run->started_at);
	r = r ?: db_bind_text(db, st, ":os", run->os);
	r = r ?: db_bind_text(db, st, ":kernel", run->kernel);
	r = r ?: db_bind_text(db, st, ":arch", run->arch);
	r = r ?: db_bind_text(db, st, ":user", run->user);
	r = r ?: db_bind_opt(db, st, ":uid", run->uid);
	r = r ?: db_bind_text(db, st, ":harness_version", run->harness_version);
	r = r ?: db_bind_text(db, st, ":git_revision", run->git_revision);
	r = r ?: db_bind_text(db, st, ":runners", run->runners);
	r = r ?: db_bind_int(db, st, ":seed", run->seed);
	r = r ?: db_bind_text(db, st, ":filter", run->filter);
	r = r ?: db_bind_text(db, st, ":env_json", run->env_json);
	r = r ?: db_step(db, st, "run");
	if (r == 0)
		id = sqlite3_last_insert_rowid(db->h);
	sqlite3_clear_bindings(st);
	r = db_tx_end(db, r);
	return r ? r : id;
}

int db_run_finish(struct db *db, int64_t run_id, const char *finished_at)
{
	sqlite3_stmt *st;
	int r;

	r = db_writable(db);
	if (r)
		return r;
	st = db->st[ST_RUN_FINISH];
	r = db_tx_begin(db);
	if (r)
		return r;
	r = db_bind_int(db, st, ":id", run_id);
	r = r ?: db_bind_text(db, st, ":finished_at", finished_at);
	r = r ?: db_step(db, st, "run finish");
	if (r == 0 && sqlite3_changes(db->h) != 1)
		r = db_fail(db, -ENOENT, "run finish: no run %lld", (long long)run_id);
	sqlite3_clear_bindings(st);
	return db_tx_end(db, r);
}

int db_scenario_put(struct db *db, const struct db_scenario *sc)
{
	sqlite3_stmt *st;
	int r;

	r = db_writable(db);
	if (r)
		return r;
	if (!sc)
		return db_fail(db, -EINVAL, "scenario: NULL");
	st = db->st[ST_SCENARIO_PUT];
	r = db_tx_begin(db);
	if (r)
		return r;
	r = db_bind_text(db, st, ":id", sc->id);
	r = r ?: db_bind_text(db, st, ":area", sc->area);
	r = r ?: db_bind_text(db, st, ":clauses", sc->clauses);
	r = r ?: db_bind_text(db, st, ":claim", sc->claim);
	r = r ?: db_bind_text(db, st, ":file", sc->file);
	r = r ?: db_bind_text(db, st, ":expect_json", sc->expect_json);
	r = r ?: db_step(db, st, "scenario");
	sqlite3_clear_bindings(st);
	return db_tx_end(db, r);
}

int64_t db_result_add(struct db *db, const struct db_result *res,
		      const struct db_evidence *ev, size_t n_ev)
{
	sqlite3_stmt *st;
	char what[48];
	int64_t id = 0;
	size_t i;
	int r;

	r = db_writable(db);
	if (r)
		return r;
	if (!res || (n_ev && !ev))
		return db_fail(db, -EINVAL, "result: NULL");
	st = db->st[ST_RESULT_ADD];
	r = db_tx_begin(db);
	if (r)
		return r;
	r = db_bind_int(db, st, ":run_id", res->run_id);
	r = r ?: db_bind_text(db, st, ":runner", res->runner);
	r = r ?: db_bind_text(db, st, ":scenario_id", res->scenario_id);
	r = r ?: db_bind_text(db, st, ":verdict", res->verdict);
	r = r ?: db_bind_text(db, st, ":expected", res->expected);
	r = r ?: db_bind_text(db, st, ":observed", res->observed);
	r = r ?: db_bind_text(db, st, ":reason", res->reason);
	r = r ?: db_bind_int(db, st, ":attempts", res->attempts);
	r = r ?: db_bind_opt(db, st, ":windows_hit", res->windows_hit);
	r = r ?: db_bind_opt(db, st, ":min_windows", res->min_windows);
	r = r ?: db_bind_int(db, st, ":seed", res->seed);
	r = r ?: db_bind_opt(db, st, ":duration_ms", res->duration_ms);
	r = r ?: db_bind_text(db, st, ":finished_at", res->finished_at);
	r = r ?: db_step(db, st, "result");
	sqlite3_clear_bindings(st);
	if (r == 0)
		id = sqlite3_last_insert_rowid(db->h);

	st = db->st[ST_EVIDENCE_ADD];
	for (i = 0; r == 0 && i < n_ev; i++) {
		snprintf(what, sizeof what, "evidence[%zu]", i);
		r = db_bind_int(db, st, ":result_id", id);
		r = r ?: db_bind_text(db, st, ":kind", ev[i].kind);
		r = r ?: db_bind_text(db, st, ":body", ev[i].body);
		r = r ?: db_step(db, st, what);
		sqlite3_clear_bindings(st);
	}
	r = db_tx_end(db, r);
	return r ? r : id;
}

/* ---- reads ---------------------------------------------------------------- */

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* An optional number: NULL reads as -1. */
static int64_t col_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1
		: sqlite3_column_int64(st, i);
}


/* Each read prepares its own statement, so a callback may start another
 * read while this one is stepping. */
static int db_query(struct db *db, const char *sql, sqlite3_stmt **st)
{
	int rc;

	if (!db)
		return -EINVAL;
	db->err[0] = 0;
	rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : db_sqlfail(db, rc, "query");
}

/* A read's callback and its context. */
struct db_iter {
	union {
		db_run_fn run;
		db_result_fn result;
		db_evidence_fn evidence;
	} fn;
	void *ctx;
};

/* Steps st to its end, row() turning each row into a callback.  Returns the
 * first nonzero callback value, or 0, or -errno; finalizes st. */
static int db_iterate(struct db *db, sqlite3_stmt *st,
		      int (*row)(sqlite3_stmt *, const struct db_iter *),
		      const struct db_iter *it)
{
	int rc, r = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = row(st, it);
		if (r)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_sqlfail(db, rc, "read");
	sqlite3_finalize(st);
	return r;
}

static int db_run_row(sqlite3_stmt *st, const struct db_iter *it)
{
	struct db_run_row row = {
		.id = sqlite3_column_int64(st, 0),
		.run = {
			.started_at = col_text(st, 1),
			.os = col_text(st, 3),
			.kernel = col_text(st, 4),
			.arch = col_text(st, 5),
			.user = col_text(st, 6),
			.uid = col_opt(st, 7),
			.harness_version = col_text(st, 8),
			.git_revision = col_text(st, 9),
			.runners = col_text(st, 10),
			.seed = sqlite3_column_int64(st, 11),
			.filter = col_text(st, 12),
			.env_json = col_text(st, 13),
		},
		.finished_at = col_text(st, 2),
	};

	return it->fn.run(&row, it->ctx);
}

int db_foreach_run(struct db *db, db_run_fn fn, void *ctx)
{
	struct db_iter it = { .fn.run = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = db_query(db, "SELECT id, started_at, finished_at, os, kernel, arch, user, uid,"
		     " harness_version, git_revision, runners, seed, filter, env_json"
		     " FROM run ORDER BY id", &st);
	if (r)
		return r;
	return db_iterate(db, st, db_run_row, &it);
}

static int db_result_row(sqlite3_stmt *st, const struct db_iter *it)
{
	struct db_row row = {
		.id = sqlite3_column_int64(st, 0),
		.result = {
			.run_id = sqlite3_column_int64(st, 1),
			.runner = col_text(st, 2),
			.scenario_id = col_text(st, 3),
			.verdict = col_text(st, 4),
			.expected = col_text(st, 5),
			.observed = col_text(st, 6),
			.reason = col_text(st, 7),
			.attempts = sqlite3_column_int64(st, 8),
			.windows_hit = col_opt(st, 9),
			.min_windows = col_opt(st, 10),
			.seed = sqlite3_column_int64(st, 11),
			.duration_ms = col_opt(st, 12),
			.finished_at = col_text(st, 13),
		},
		.area = col_text(st, 14),
		.clauses = col_text(st, 15),
		.claim = col_text(st, 16),
	};

	return it->fn.result(&row, it->ctx);
}

int db_foreach_result(struct db *db, int64_t run_id, db_result_fn fn, void *ctx)
{
	struct db_iter it = { .fn.result = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = db_query(db, "SELECT r.id, r.run_id, r.runner, r.scenario_id, r.verdict,"
		     " r.expected, r.observed, r.reason, r.attempts, r.windows_hit,"
		     " r.min_windows, r.seed, r.duration_ms, r.finished_at,"
		     " s.area, s.clauses, s.claim"
		     " FROM result AS r LEFT JOIN scenario AS s ON s.id = r.scenario_id"
		     " WHERE :run_id = 0 OR r.run_id = :run_id ORDER BY r.id", &st);
	if (r)
		return r;
	r = db_bind_int(db, st, ":run_id", run_id);
	if (r) {
		sqlite3_finalize(st);
		return r;
	}
	return db_iterate(db, st, db_result_row, &it);
}

static int db_evidence_row(sqlite3_stmt *st, const struct db_iter *it)
{
	struct db_evidence ev = {
		.kind = col_text(st, 1),
		.body = col_text(st, 2),
	};

	return it->fn.evidence(sqlite3_column_int64(st, 0), &ev, it->ctx);
}

int db_foreach_evidence(struct db *db, int64_t result_id, db_evidence_fn fn,
			void *ctx)
{
	struct db_iter it = { .fn.evidence = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = db_query(db, "SELECT id, kind, body FROM evidence"
		     " WHERE result_id = :result_id ORDER BY id", &st);
	if (r)
		return r;
	r = db_bind_int(db, st, ":result_id", result_id);
	if (r) {
		sqlite3_finalize(st);
		return r;
	}
	return db_iterate(db, st, db_evidence_row, &it);
}
