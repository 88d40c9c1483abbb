/* store_read.c - the read calls of the results store (sandproof/store.h).
 * Each prepares its own statement, so a callback may start another read. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>

#include "store_int.h"

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
static int store_query(struct store *db, const char *sql, sqlite3_stmt **st)
{
	int rc;

	if (!db)
		return -EINVAL;
	db->err[0] = 0;
	rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : store_sqlfail(db, rc, "query");
}

/* A read's callback and its context. */
struct store_iter {
	union {
		store_run_fn run;
		store_result_fn result;
		store_evidence_fn evidence;
		store_scenario_fn scenario;
	} fn;
	void *ctx;
};

/* Steps st to its end, row() turning each row into a callback.  Returns the
 * first nonzero callback value, or 0, or -errno; finalizes st. */
static int store_iterate(struct store *db, sqlite3_stmt *st,
			 int (*row)(sqlite3_stmt *, const struct store_iter *),
			 const struct store_iter *it)
{
	int rc, r = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = row(st, it);
		if (r)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = store_sqlfail(db, rc, "read");
	sqlite3_finalize(st);
	return r;
}

static int row_to_run(sqlite3_stmt *st, const struct store_iter *it)
{
	struct store_run_row row = {
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

int store_read_runs(struct store *db, store_run_fn fn, void *ctx)
{
	struct store_iter it = { .fn.run = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = store_query(db, "SELECT id, started_at, finished_at, os, kernel, arch, user, uid,"
			" harness_version, git_revision, runners, seed, filter, env_json"
			" FROM run ORDER BY id", &st);
	if (r)
		return r;
	return store_iterate(db, st, row_to_run, &it);
}

static int row_to_result(sqlite3_stmt *st, const struct store_iter *it)
{
	struct store_result_row row = {
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
			.impact = col_text(st, 17),
		},
		.area = col_text(st, 14),
		.clauses = col_text(st, 15),
		.claim = col_text(st, 16),
	};

	return it->fn.result(&row, it->ctx);
}

int store_read_results(struct store *db, int64_t run_id, store_result_fn fn, void *ctx)
{
	struct store_iter it = { .fn.result = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = store_query(db, "SELECT r.id, r.run_id, r.runner, r.scenario_id, r.verdict,"
			" r.expected, r.observed, r.reason, r.attempts, r.windows_hit,"
			" r.min_windows, r.seed, r.duration_ms, r.finished_at,"
			" s.area, s.clauses, s.claim, r.impact"
			" FROM result AS r LEFT JOIN scenario AS s ON s.id = r.scenario_id"
			" WHERE :run_id = 0 OR r.run_id = :run_id ORDER BY r.id", &st);
	if (r)
		return r;
	r = store_bind_int(db, st, ":run_id", run_id);
	if (r) {
		sqlite3_finalize(st);
		return r;
	}
	return store_iterate(db, st, row_to_result, &it);
}

static int row_to_evidence(sqlite3_stmt *st, const struct store_iter *it)
{
	struct store_evidence ev = {
		.kind = col_text(st, 1),
		.body = col_text(st, 2),
	};

	return it->fn.evidence(sqlite3_column_int64(st, 0), &ev, it->ctx);
}

int store_read_evidence(struct store *db, int64_t result_id, store_evidence_fn fn,
			void *ctx)
{
	struct store_iter it = { .fn.evidence = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = store_query(db, "SELECT id, kind, body FROM evidence"
			" WHERE result_id = :result_id ORDER BY id", &st);
	if (r)
		return r;
	r = store_bind_int(db, st, ":result_id", result_id);
	if (r) {
		sqlite3_finalize(st);
		return r;
	}
	return store_iterate(db, st, row_to_evidence, &it);
}

static int row_to_scenario(sqlite3_stmt *st, const struct store_iter *it)
{
	struct store_scenario sc = {
		.id = col_text(st, 0),
		.area = col_text(st, 1),
		.clauses = col_text(st, 2),
		.claim = col_text(st, 3),
		.file = col_text(st, 4),
		.expect_json = col_text(st, 5),
	};

	return it->fn.scenario(&sc, it->ctx);
}

int store_read_scenarios(struct store *db, store_scenario_fn fn, void *ctx)
{
	struct store_iter it = { .fn.scenario = fn, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	r = store_query(db, "SELECT id, area, clauses, claim, file, expect_json"
			" FROM scenario ORDER BY id", &st);
	if (r)
		return r;
	return store_iterate(db, st, row_to_scenario, &it);
}
