/* store.c - the results store (sandproof/store.h): opening, identifying,
 * checking and creating a database, errors, parameters and transactions.
 * store_write.c and store_read.c hold the calls on an open store.
 *
 * Fossil's way with sqlite: every statement is prepared once with named
 * parameters (:name), bound through store_bind_*(), run by store_step(); every
 * write call is one transaction and store_tx_end() is the only function that
 * commits.  Reads prepare their own statements so they nest. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define STORE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

static const char *const store_sql[ST_N] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_RUN_BEGIN] =
		"INSERT INTO run (started_at, os, kernel, arch, user, uid,"
		" harness_version, git_revision, runners, seed, filter, env_json)"
		" VALUES (coalesce(:started_at, " STORE_NOW "), :os, :kernel, :arch,"
		" :user, :uid, :harness_version, :git_revision, :runners, :seed,"
		" :filter, :env_json)",
	[ST_RUN_FINISH] =
		"UPDATE run SET finished_at = coalesce(:finished_at, " STORE_NOW ")"
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
		" duration_ms, finished_at, impact)"
		" VALUES (:run_id, :runner, :scenario_id, :verdict, :expected,"
		" :observed, :reason, :attempts, :windows_hit, :min_windows, :seed,"
		" :duration_ms, coalesce(:finished_at, " STORE_NOW "), :impact)",
	[ST_EVIDENCE_ADD] =
		"INSERT INTO evidence (result_id, kind, body)"
		" VALUES (:result_id, :kind, :body)",
};

/* ---- errors ------------------------------------------------------------- */

/* The -errno for a sqlite result code.  Open and I/O failures carry the
 * errno of the system call that failed, when sqlite recorded one. */
static int store_errno(sqlite3 *h, int rc)
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
const char *const store_impacts[STORE_N_IMPACTS] = {
	"escape", "exposure", "hardening", "reporting", "fidelity", "residue",
};

int store_impact_index(const char *name)
{
	for (int i = 0; name && i < STORE_N_IMPACTS; i++)
		if (!strcmp(name, store_impacts[i]))
			return i;
	return -1;
}

int store_fail(struct store *db, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof db->err, fmt, ap);
	va_end(ap);
	return r;
}

/* The failure of a sqlite call: "<what>: <sqlite's message>".  A lock held
 * past our bound says how long we waited. */
int store_sqlfail(struct store *db, int rc, const char *what)
{
	int r = store_errno(db->h, rc);

	if ((rc & 0xff) == SQLITE_BUSY)
		return store_fail(db, -EBUSY,
				  "%s: database is locked by another process (waited %g s)",
				  what, db->wait_ms / 1000.0);
	return store_fail(db, r ? r : -EIO, "%s: %s", what,
			  db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
}

const char *store_get_error(const struct store *db)
{
	return db ? db->err : "no database";
}

/* ---- statements and parameters ------------------------------------------ */

/* Looks a named parameter up; a missing name is a bug in this file. */
static int store_param(struct store *db, sqlite3_stmt *st, const char *name)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i == 0)
		return store_fail(db, -EINVAL, "internal: no parameter %s in: %s",
				  name, sqlite3_sql(st));
	return i;
}

/* Binds text (NULL: SQL NULL).  SQLITE_STATIC: the caller's string outlives
 * the statement's use, which store_step() ends by clearing the bindings. */
int store_bind_text(struct store *db, sqlite3_stmt *st, const char *name,
		    const char *v)
{
	int i = store_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC)
	       : sqlite3_bind_null(st, i);
	return rc == SQLITE_OK ? 0 : store_sqlfail(db, rc, name);
}

int store_bind_int(struct store *db, sqlite3_stmt *st, const char *name,
		   int64_t v)
{
	int i = store_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = sqlite3_bind_int64(st, i, v);
	return rc == SQLITE_OK ? 0 : store_sqlfail(db, rc, name);
}

/* An optional number: negative stores NULL. */
int store_bind_opt(struct store *db, sqlite3_stmt *st, const char *name,
		   int64_t v)
{
	int i = store_param(db, st, name), rc;

	if (i < 0)
		return i;
	rc = v < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
	return rc == SQLITE_OK ? 0 : store_sqlfail(db, rc, name);
}


/* Runs a write statement to completion, then resets it and clears its
 * bindings, so no later call can see this call's (borrowed) strings. */
int store_step(struct store *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st), r = 0;

	if (rc != SQLITE_DONE)
		r = store_sqlfail(db, rc, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r;
}

/* One integer from a one-row query (a pragma, a count). */
static int store_int(struct store *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		r = store_sqlfail(db, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* ---- transactions ------------------------------------------------------- */

/* Starts the transaction of one write call.  IMMEDIATE takes the write lock
 * now, so a concurrent writer makes us wait here (busy timeout) instead of
 * failing halfway through our statements. */
int store_tx_begin(struct store *db)
{
	int r;

	if (db->in_tx)
		return store_fail(db, -EINVAL, "internal: nested transaction");
	db->err[0] = 0;
	r = store_step(db, db->st[ST_BEGIN], "begin");
	if (r == 0)
		db->in_tx = 1;
	return r;
}

/* Ends the transaction store_tx_begin() started: commits when r is 0, else rolls
 * back.  The only place that commits.  When it returns 0 the transaction is
 * in the WAL file, so it survives the death of this process (not a power
 * loss: synchronous=NORMAL syncs at checkpoints only).  Returns r, or the
 * commit's failure, after which nothing of the transaction remains. */
int store_tx_end(struct store *db, int r)
{
	char keep[sizeof db->err];

	if (!db->in_tx)
		return r;
	db->in_tx = 0;
	if (r == 0) {
		r = store_step(db, db->st[ST_COMMIT], "commit");
		if (r == 0)
			return 0;
	}
	/* A failed COMMIT may leave the transaction open; never let a later
	 * call commit half of this one. */
	if (!sqlite3_get_autocommit(db->h)) {
		memcpy(keep, db->err, sizeof keep);
		store_step(db, db->st[ST_ROLLBACK], "rollback");
		memcpy(db->err, keep, sizeof keep);
	}
	return r;
}

int store_writable(struct store *db)
{
	if (!db)
		return -EINVAL;
	if (db->readonly)
		return store_fail(db, -EBADF, "database opened read-only");
	return 0;
}

/* ---- open and close ----------------------------------------------------- */

/* Reads the header fields that say whose database this is.  *fresh: an
 * empty database, to be given our schema. */
static int store_identify(struct store *db, int *fresh)
{
	int64_t app = 0, ver = 0, n = 0;
	int r;

	r = store_int(db, "PRAGMA application_id", &app);
	if (r == 0)
		r = store_int(db, "PRAGMA user_version", &ver);
	if (r == 0)
		r = store_int(db, "SELECT count(*) FROM sqlite_master", &n);
	if (r == -EINVAL) {
		char why[sizeof db->err];
		const char *colon = strchr(db->err, ':');   /* "<sql>: <why>" */

		snprintf(why, sizeof why, "%s", colon ? colon + 2 : "unreadable header");
		if (sqlite3_errcode(db->h) == SQLITE_CORRUPT)
			return store_fail(db, r, "corrupt database (%s); refusing to use it", why);
		return store_fail(db, r, "not a sqlite database (%s)", why);
	}
	if (r)
		return r;
	*fresh = app == 0 && ver == 0 && n == 0;
	if (*fresh)
		return 0;
	if (app != STORE_APPLICATION_ID)
		return store_fail(db, -EINVAL,
				  "not a sandproof results database (application_id %#llx, expected %#x)",
				  (unsigned long long)app, STORE_APPLICATION_ID);
	if (ver > STORE_SCHEMA_VERSION)
		return store_fail(db, -EPROTO,
				  "schema version %lld is newer than this sandproof's %d; use a newer sandproof or another database",
				  (long long)ver, STORE_SCHEMA_VERSION);
	if (ver < STORE_SCHEMA_VERSION)
		return store_fail(db, -EPROTO,
				  "schema version %lld is older than this sandproof's %d (%s) and cannot be upgraded; record to a new database (another --out)",
				  (long long)ver, STORE_SCHEMA_VERSION,
				  ver < 2 ? "its failures carry no impact class"
					  : "its failures were classed before the class hardening: an escape there may be hardening now");
	return 0;
}

/* Refuses a database that fails PRAGMA integrity_check, before anything is
 * written to it: appending to a corrupt file can lose what it holds, and a
 * report from one can show what was never recorded.  The full check (not
 * quick_check) also compares each index with its table, which the reports'
 * queries rely on; it reads the whole file once (about 0.5 s for 200 MB). */
static int store_check(struct store *db)
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
		r = store_sqlfail(db, rc, "integrity_check");
		if (r == -EINVAL)
			r = store_fail(db, r, "corrupt database (integrity_check: %s); refusing to use it",
				       sqlite3_errmsg(db->h));
	} else if (n != 1 || strcmp(first, "ok") != 0) {
		r = store_fail(db, -EINVAL,
			       "corrupt database (integrity_check: %s%s); refusing to use it",
			       first, n > 1 ? ", ..." : "");
	}
	sqlite3_finalize(st);
	return r;
}

/* Gives an empty database our schema.  Under the write lock the file is
 * identified again: another process may have created it since our look. */
static int store_create(struct store *db)
{
	char *msg = NULL;
	int64_t ver = 0;
	int fresh = 0, r, rc;

	r = store_tx_begin(db);
	if (r)
		return r;
	r = store_identify(db, &fresh);
	if (r == 0 && fresh) {
		rc = sqlite3_exec(db->h, store_schema_sql, NULL, NULL, &msg);
		if (rc != SQLITE_OK)
			r = store_fail(db, store_errno(db->h, rc) ?: -EIO, "schema: %s",
				       msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
	}
	if (r == 0 && fresh)
		r = store_int(db, "PRAGMA user_version", &ver);
	if (r == 0 && fresh && ver != STORE_SCHEMA_VERSION)
		r = store_fail(db, -EPROTO,
			       "internal: schema.sql sets user_version %lld, store.h says %d",
			       (long long)ver, STORE_SCHEMA_VERSION);
	return store_tx_end(db, r);
}

/* Prepares statements [from, to).  A database whose tables lack a column
 * we write is refused here, at open, not at its first result. */
static int store_prepare(struct store *db, int from, int to)
{
	int i, rc;

	for (i = from; i < to; i++) {
		rc = sqlite3_prepare_v3(db->h, store_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL);
		if (rc != SQLITE_OK)
			return store_sqlfail(db, rc, "schema does not match");
	}
	return 0;
}

/* Everything after sqlite3_open_v2(); the order matters: a file is
 * identified (read only) before anything is written to it, so a foreign or
 * newer database is refused untouched. */
static int store_setup(struct store *db)
{
	char *msg = NULL;
	int fresh = 0, r, rc;
	sqlite3_stmt *st = NULL;
	const char *mode;

	sqlite3_busy_timeout(db->h, (int)db->wait_ms);
	r = store_identify(db, &fresh);
	if (r == 0 && !fresh)
		r = store_check(db);
	if (r)
		return r;
	if (db->readonly)
		return fresh ? store_fail(db, -EINVAL, "empty, not a sandproof results database") : 0;
	if (sqlite3_db_readonly(db->h, "main") == 1)
		return store_fail(db, -EACCES, "not writable");

	/* WAL: a commit is one append to the -wal file, so a process killed at
	 * any instant leaves either the whole transaction or none of it. */
	rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode = WAL", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = store_sqlfail(db, rc, "journal_mode");
		sqlite3_finalize(st);
		return r;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (!mode || strcmp(mode, "wal") != 0)
		r = store_fail(db, -ENOTSUP, "cannot use WAL mode here (journal_mode %s)",
			       mode ? mode : "?");
	sqlite3_finalize(st);
	if (r)
		return r;
	rc = sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
			  NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		r = store_fail(db, store_errno(db->h, rc) ?: -EIO, "pragma: %s",
			       msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return r;
	}
	r = store_prepare(db, 0, ST_TX_N);
	if (r == 0 && fresh)
		r = store_create(db);
	if (r == 0)
		r = store_prepare(db, ST_TX_N, ST_N);
	return r;
}

static int store_open_mode(const char *path, int readonly, unsigned wait_ms,
			   struct store **out, char *err, size_t errlen)
{
	struct store *db;
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
		r = store_sqlfail(db, rc, "cannot open");
		if (r == -EACCES || r == -ENOENT || r == -EISDIR)
			snprintf(db->err, sizeof db->err, "cannot open: %s", strerror(-r));
	} else {
		r = store_setup(db);
	}
	if (r) {
		snprintf(err, errlen, "%s: %s", path, db->err);
		store_close(db);
		return r;
	}
	*out = db;
	return 0;
}

int store_open(const char *path, struct store **out, char *err, size_t errlen)
{
	return store_open_mode(path, 0, STORE_WAIT_MS, out, err, errlen);
}

int store_open_wait(const char *path, unsigned wait_ms, struct store **out, char *err,
		    size_t errlen)
{
	return store_open_mode(path, 0, wait_ms, out, err, errlen);
}

int store_open_readonly(const char *path, struct store **out, char *err, size_t errlen)
{
	return store_open_mode(path, 1, STORE_WAIT_MS, out, err, errlen);
}

int store_close(struct store *db)
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
