/* store_write.c - the write calls of the results store (sandproof/store.h):
 * each is one transaction, committed (or rolled back) before it returns. */
#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>

#include "store_int.h"

/* The prologue of every write: a writable store, the argument present
 * (ok), the prepared statement `which`, and an open transaction.  Returns
 * 0 with *st set, or -errno (recorded in db) with nothing begun. */
static int write_begin(struct store *db, int which, bool ok, const char *what, sqlite3_stmt **st)
{
	int r = store_writable(db);

	if (r)
		return r;
	if (!ok)
		return store_fail(db, -EINVAL, "%s: NULL", what);
	*st = db->st[which];
	return store_tx_begin(db);
}

int64_t store_begin_run(struct store *db, const struct store_run *run)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int r;

	r = write_begin(db, ST_RUN_BEGIN, run, "run", &st);
	if (r)
		return r;
	r = store_bind_text(db, st, ":started_at", run->started_at);
	r = r ?: store_bind_text(db, st, ":os", run->os);
	r = r ?: store_bind_text(db, st, ":kernel", run->kernel);
	r = r ?: store_bind_text(db, st, ":arch", run->arch);
	r = r ?: store_bind_text(db, st, ":user", run->user);
	r = r ?: store_bind_opt(db, st, ":uid", run->uid);
	r = r ?: store_bind_text(db, st, ":harness_version", run->harness_version);
	r = r ?: store_bind_text(db, st, ":git_revision", run->git_revision);
	r = r ?: store_bind_text(db, st, ":runners", run->runners);
	r = r ?: store_bind_int(db, st, ":seed", run->seed);
	r = r ?: store_bind_text(db, st, ":filter", run->filter);
	r = r ?: store_bind_text(db, st, ":env_json", run->env_json);
	r = r ?: store_step(db, st, "run");
	if (r == 0)
		id = sqlite3_last_insert_rowid(db->h);
	sqlite3_clear_bindings(st);
	r = store_tx_end(db, r);
	return r ? r : id;
}

int store_finish_run(struct store *db, int64_t run_id, const char *finished_at)
{
	sqlite3_stmt *st = NULL;
	int r;

	r = write_begin(db, ST_RUN_FINISH, true, "run finish", &st);
	if (r)
		return r;
	r = store_bind_int(db, st, ":id", run_id);
	r = r ?: store_bind_text(db, st, ":finished_at", finished_at);
	r = r ?: store_step(db, st, "run finish");
	if (r == 0 && sqlite3_changes(db->h) != 1)
		r = store_fail(db, -ENOENT, "run finish: no run %lld", (long long)run_id);
	sqlite3_clear_bindings(st);
	return store_tx_end(db, r);
}

int store_put_scenario(struct store *db, const struct store_scenario *sc)
{
	sqlite3_stmt *st = NULL;
	int r;

	r = write_begin(db, ST_SCENARIO_PUT, sc, "scenario", &st);
	if (r)
		return r;
	r = store_bind_text(db, st, ":id", sc->id);
	r = r ?: store_bind_text(db, st, ":area", sc->area);
	r = r ?: store_bind_text(db, st, ":clauses", sc->clauses);
	r = r ?: store_bind_text(db, st, ":claim", sc->claim);
	r = r ?: store_bind_text(db, st, ":file", sc->file);
	r = r ?: store_bind_text(db, st, ":expect_json", sc->expect_json);
	r = r ?: store_step(db, st, "scenario");
	sqlite3_clear_bindings(st);
	return store_tx_end(db, r);
}

int64_t store_add_result(struct store *db, const struct store_result *res,
			 const struct store_evidence *ev, size_t n_ev)
{
	sqlite3_stmt *st = NULL;
	char what[48];
	int64_t id = 0;
	size_t i;
	int r;

	r = write_begin(db, ST_RESULT_ADD, res && (!n_ev || ev), "result", &st);
	if (r)
		return r;
	r = store_bind_int(db, st, ":run_id", res->run_id);
	r = r ?: store_bind_text(db, st, ":runner", res->runner);
	r = r ?: store_bind_text(db, st, ":scenario_id", res->scenario_id);
	r = r ?: store_bind_text(db, st, ":verdict", res->verdict);
	r = r ?: store_bind_text(db, st, ":expected", res->expected);
	r = r ?: store_bind_text(db, st, ":observed", res->observed);
	r = r ?: store_bind_text(db, st, ":reason", res->reason);
	r = r ?: store_bind_int(db, st, ":attempts", res->attempts);
	r = r ?: store_bind_opt(db, st, ":windows_hit", res->windows_hit);
	r = r ?: store_bind_opt(db, st, ":min_windows", res->min_windows);
	r = r ?: store_bind_int(db, st, ":seed", res->seed);
	r = r ?: store_bind_opt(db, st, ":duration_ms", res->duration_ms);
	r = r ?: store_bind_text(db, st, ":finished_at", res->finished_at);
	r = r ?: store_bind_text(db, st, ":impact", res->impact);
	r = r ?: store_step(db, st, "result");
	sqlite3_clear_bindings(st);
	if (r == 0)
		id = sqlite3_last_insert_rowid(db->h);

	st = db->st[ST_EVIDENCE_ADD];
	for (i = 0; r == 0 && i < n_ev; i++) {
		snprintf(what, sizeof what, "evidence[%zu]", i);
		r = store_bind_int(db, st, ":result_id", id);
		r = r ?: store_bind_text(db, st, ":kind", ev[i].kind);
		r = r ?: store_bind_text(db, st, ":body", ev[i].body);
		r = r ?: store_step(db, st, what);
		sqlite3_clear_bindings(st);
	}
	r = store_tx_end(db, r);
	return r ? r : id;
}
