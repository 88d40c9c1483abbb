/* test_store.c - the results store (reports/store).
 *
 * Usage: test_store PATH/reports/schema.sql
 * Prints one line per check and "N passed, N failed"; exits 1 on a failure.
 * Every file is made under one mkdtemp directory, removed at the end; the
 * SIGKILL check forks one writer child and kills it by pid. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "sandproof/store.h"

#define KILL_AFTER 50        /* results the child must report before the kill */

static char base[512];       /* scratch directory */

/* Declares char name[PATH_MAX] holding base/rel. */
#define PATH(name, rel) \
	char name[PATH_MAX]; \
	snprintf(name, sizeof name, "%s/%s", base, rel)

static void cleanup(void)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		PATH(path, e->d_name);
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(path);
	}
	closedir(d);
	rmdir(base);
}

/* ---- raw sqlite, to look at the file independently of the store ---------------- */

/* One integer (or -1000 on failure) from sql on path. */
static int64_t sq_int(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1000;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* The first column of the first row of sql, as text, into buf ("" if none). */
static const char *sq_text(const char *path, const char *sql, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;

	snprintf(buf, len, "%s", "");
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return buf;
}

static int sq_exec(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	int rc;

	rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		*len = fread(buf, 1, (size_t)n, f);
		buf[*len] = 0;
	}
	fclose(f);
	return buf;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* How many open descriptors name a file under prefix, and how many of those
 * lack FD_CLOEXEC. */
static void fds_under(const char *prefix, int *n, int *inheritable)
{
	char link[64], target[PATH_MAX];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	ssize_t len;
	int fd;

	*n = *inheritable = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		len = readlink(link, target, sizeof target - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (strncmp(target, prefix, strlen(prefix)) != 0)
			continue;
		(*n)++;
		if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC))
			(*inheritable)++;
	}
	closedir(d);
}

/* ---- fixtures ---------------------------------------------------------------- */

static const struct store_run run1 = {
	.os = "linux", .kernel = "6.18.0", .arch = "x86_64", .user = "tester",
	.uid = 1000, .harness_version = "0.1.0", .git_revision = "5e5ec04",
	.runners = "ref,none", .seed = 42, .filter = "net.*",
	.env_json = "{\"landlock_abi\": 7, \"seccomp_notify\": true}",
};

static const struct store_scenario sc1 = {
	.id = "net.deny.host_loopback", .area = "net", .clauses = "NET-1,NET-2",
	.claim = "A sandboxed command cannot reach a host loopback listener.",
	.file = "scenarios/net/deny_host_loopback.lua",
	.expect_json = "{\"linux\": [\"pass\"], \"macos\": [\"pass\", \"unsupported\"]}",
};

static int count_rows(const struct store_result_row *row, void *ctx)
{
	(void)row;
	(*(int *)ctx)++;
	return 0;
}

static int count_runs(const struct store_run_row *row, void *ctx)
{
	(void)row;
	(*(int *)ctx)++;
	return 0;
}

static int stop_at_first(const struct store_result_row *row, void *ctx)
{
	(void)row;
	(void)ctx;
	return 7;
}

static int streq(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* An ISO 8601 UTC time with milliseconds, 2025-06-01T12:34:56.789Z. */
static int is_time(const char *s)
{
	return s && strlen(s) == 24 && s[4] == '-' && s[10] == 'T' &&
	       s[19] == '.' && s[23] == 'Z';
}

/* ---- schema ------------------------------------------------------------------ */

/* Appends every row of sql on path to buf, columns joined by '|', one row a
 * line; returns the number of rows, or -1. */
static int sq_dump(const char *path, const char *sql, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t used = strlen(buf);
	int rc, n = 0;

	rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st) && used < len; i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);

			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "",
						 v ? v : "NULL");
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "\n");
		n++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc == SQLITE_DONE && used < len ? n : -1;
}

/* What a database's schema is: every object with its SQL text, every
 * column, every foreign key, and the header fields.  Returns the number of
 * objects and sets *cols to the number of columns, or -1. */
static int schema_dump(const char *path, char *buf, size_t len, int *cols)
{
	int objects, fks, ids;

	buf[0] = 0;
	objects = sq_dump(path, "SELECT type, name, tbl_name, sql FROM sqlite_master"
			  " ORDER BY type, name", buf, len);
	*cols = sq_dump(path, "SELECT m.name, p.* FROM sqlite_master AS m,"
			" pragma_table_info(m.name) AS p WHERE m.type = 'table'"
			" ORDER BY m.name, p.cid", buf, len);
	fks = sq_dump(path, "SELECT m.name, f.* FROM sqlite_master AS m,"
		      " pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table'"
		      " ORDER BY m.name, f.id, f.seq", buf, len);
	ids = sq_dump(path, "SELECT * FROM pragma_user_version, pragma_application_id",
		      buf, len);
	return *cols < 0 || fks < 0 || ids != 1 ? -1 : objects;
}

/* A database the store creates has exactly the schema of reports/schema.sql
 * run by sqlite itself on an empty file: the same tables, columns, indexes,
 * constraints (each object's SQL text) and header fields. */
static void test_schema(const char *schema_path)
{
	PATH(made, "schema-store.sqlite");
	PATH(ref, "schema-ref.sqlite");
	static char got[32768], want_dump[32768];
	struct store *db = NULL;
	size_t len = 0;
	char *text = slurp(schema_path, &len), want[64], err[512];
	int n_got, n_want, cols_got, cols_want, r;

	if (!t_ok(text != NULL, "read %s", schema_path))
		return;
	snprintf(want, sizeof want, "\nPRAGMA user_version = %d;", STORE_SCHEMA_VERSION);
	t_ok(strstr(store_schema_sql, want) != NULL, "schema sets user_version %d", STORE_SCHEMA_VERSION);
	snprintf(want, sizeof want, "\nPRAGMA application_id = %d;", STORE_APPLICATION_ID);
	t_ok(strstr(store_schema_sql, want) != NULL, "schema sets application_id %#x", STORE_APPLICATION_ID);
	r = store_open(made, &db, err, sizeof err);
	store_close(db);
	t_ok(r == 0 && sq_exec(ref, text) == SQLITE_OK,
	     "a database made by the store, another by sqlite from %s (%s)", schema_path, err);
	n_got = schema_dump(made, got, sizeof got, &cols_got);
	n_want = schema_dump(ref, want_dump, sizeof want_dump, &cols_want);
	t_ok(n_want >= 7 && cols_want >= 30 && n_got == n_want && cols_got == cols_want &&
	     strcmp(got, want_dump) == 0,
	     "the store's database has exactly schema.sql's %d objects and %d columns (store: %d, %d)",
	     n_want, cols_want, n_got, cols_got);
	if (strcmp(got, want_dump) != 0)
		printf("# store:\n%s# schema.sql:\n%s", got, want_dump);
	free(text);
}

/* ---- create and reopen ------------------------------------------------------- */

struct first_run {
	int n;
	struct store_run_row row;
	char started[64], finished[64], os[16], env[128];
};

static int grab_run(const struct store_run_row *row, void *ctx)
{
	struct first_run *f = ctx;

	if (f->n++ == 0) {
		f->row = *row;
		snprintf(f->started, sizeof f->started, "%s", row->run.started_at ? row->run.started_at : "(null)");
		snprintf(f->finished, sizeof f->finished, "%s", row->finished_at ? row->finished_at : "(null)");
		snprintf(f->os, sizeof f->os, "%s", row->run.os ? row->run.os : "(null)");
		snprintf(f->env, sizeof f->env, "%s", row->run.env_json ? row->run.env_json : "(null)");
	}
	return 0;
}

static void test_create(void)
{
	PATH(path, "create.sqlite");
	struct store *db = NULL, *db2 = NULL;
	struct first_run f = { 0 };
	char err[512], buf[64];
	int64_t id;
	int r, n;

	r = store_open(path, &db, err, sizeof err);
	t_ok(r == 0 && db, "store_open creates a new database (%d %s)", r, err);
	if (!db)
		return;
	t_ok(access(path, F_OK) == 0, "the file exists");
	t_ok(streq(sq_text(path, "PRAGMA journal_mode", buf, sizeof buf), "wal"),
	     "journal_mode is wal (%s)", buf);
	t_ok(sq_int(path, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "user_version is %d",
	     STORE_SCHEMA_VERSION);
	t_ok(sq_int(path, "PRAGMA application_id") == STORE_APPLICATION_ID, "application_id is set");
	t_ok(sq_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
		    " ('run', 'scenario', 'result', 'evidence')") == 4, "the four tables exist");
	t_ok(sq_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN"
		    " ('result_by_run', 'result_by_scenario_runner', 'evidence_by_result')") == 3,
	     "the indexes exist");
	id = store_begin_run(db, &run1);
	t_ok(id == 1, "store_begin_run returns the run id (%lld %s)", (long long)id, store_get_error(db));
	fds_under(path, &n, &r);
	t_ok(n >= 2 && r == 0,
	     "every descriptor on the database and its WAL is close-on-exec (%d of %d inheritable)",
	     r, n);

	/* A second handle on the same file, as a second process would have. */
	r = store_open(path, &db2, err, sizeof err);
	t_ok(r == 0, "a second handle opens the same file (%d %s)", r, err);
	n = 0;
	r = db2 ? store_read_runs(db2, count_runs, &n) : -1;
	t_ok(r == 0 && n == 1, "the second handle sees the committed run (%d)", n);
	t_ok(store_close(db2) == 0 && store_close(db) == 0, "store_close");

	db = NULL;
	r = store_open(path, &db, err, sizeof err);
	t_ok(r == 0, "reopen (%d %s)", r, err);
	if (!db)
		return;
	r = store_read_runs(db, grab_run, &f);
	t_ok(r == 0 && f.n == 1 && f.row.id == id && streq(f.os, "linux") &&
	     streq(f.env, run1.env_json) && f.row.run.seed == 42 && f.row.run.uid == 1000,
	     "the run survives the reopen (%d runs, os %s)", f.n, f.os);
	t_ok(is_time(f.started) && streq(f.finished, "(null)"),
	     "started_at defaults to now (%s), finished_at is NULL", f.started);
	r = store_finish_run(db, id, NULL);
	f.n = 0;
	store_read_runs(db, grab_run, &f);
	t_ok(r == 0 && is_time(f.finished), "store_finish_run sets finished_at (%s)", f.finished);
	r = store_finish_run(db, 999, NULL);
	t_ok(r == -ENOENT, "store_finish_run of an unknown run: -ENOENT (%d: %s)", r, store_get_error(db));
	store_close(db);
}

/* ---- refusals ---------------------------------------------------------------- */

/* A version 1 database (before impact classes): refused, for writing and
 * for reports, with a message saying why and what to do. */
static void test_refuse_older(void)
{
	PATH(older, "older.sqlite");
	struct store *db = NULL;
	char err[512];
	int r;

	t_ok(sq_exec(older, store_schema_sql) == SQLITE_OK &&
	     sq_exec(older, "PRAGMA user_version = 1;") == SQLITE_OK,
	     "made a database with user_version 1");
	r = store_open(older, &db, err, sizeof err);
	t_ok(r == -EPROTO && !db && strstr(err, "schema version 1 is older") &&
	     strstr(err, "no impact class") && strstr(err, older),
	     "an older schema is refused naming why (%d: %s)", r, err);
	r = store_open_readonly(older, &db, err, sizeof err);
	t_ok(r == -EPROTO && !db, "store_open_readonly refuses it too (%d)", r);
}

/* A version 2 database (classes before `hardening`: its CHECK refuses the
 * class, and its escapes may be hardening now): refused, by name, for
 * writing and for reports. */
static void test_refuse_v2(void)
{
	PATH(v2, "v2.sqlite");
	struct store *db = NULL;
	char err[512];
	int r;

	t_ok(sq_exec(v2, store_schema_sql) == SQLITE_OK &&
	     sq_exec(v2, "PRAGMA user_version = 2;") == SQLITE_OK,
	     "made a database with user_version 2");
	r = store_open(v2, &db, err, sizeof err);
	t_ok(r == -EPROTO && !db && strstr(err, "schema version 2 is older") &&
	     strstr(err, "before the class hardening") && strstr(err, v2),
	     "a version 2 database is refused naming why (%d: %s)", r, err);
	r = store_open_readonly(v2, &db, err, sizeof err);
	t_ok(r == -EPROTO && !db && strstr(err, "before the class hardening"),
	     "store_open_readonly refuses it too (%d)", r);
}

static void test_refuse(void)
{
	PATH(newer, "newer.sqlite");
	PATH(junk, "junk.sqlite");
	PATH(junk_wal, "junk.sqlite-wal");
	PATH(foreign, "foreign.sqlite");
	PATH(locked, "locked.sqlite");
	PATH(missing, "missing.sqlite");
	PATH(empty, "empty.sqlite");
	unsigned char garbage[4096];
	struct store *db = NULL;
	char err[512], buf[64], want[128], *back;
	size_t i, len = 0;
	int r;

	/* A database from a newer sandproof: our schema, a higher version. */
	snprintf(want, sizeof want, "PRAGMA user_version = %d;", STORE_SCHEMA_VERSION + 1);
	t_ok(sq_exec(newer, store_schema_sql) == SQLITE_OK && sq_exec(newer, want) == SQLITE_OK,
	     "made a database with user_version %d", STORE_SCHEMA_VERSION + 1);
	r = store_open(newer, &db, err, sizeof err);
	snprintf(want, sizeof want, "schema version %d is newer than this sandproof's %d",
		 STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
	t_ok(r == -EPROTO && !db, "newer schema refused with -EPROTO (%d)", r);
	t_ok(strstr(err, want) && strstr(err, newer), "the message names both versions: %s", err);
	t_ok(streq(sq_text(newer, "PRAGMA journal_mode", buf, sizeof buf), "delete"),
	     "the refused file is left untouched (journal_mode %s)", buf);
	r = store_open_readonly(newer, &db, err, sizeof err);
	t_ok(r == -EPROTO && !db, "store_open_readonly refuses it too (%d)", r);
	test_refuse_older();
	test_refuse_v2();

	/* Not a sqlite file at all. */
	for (i = 0; i < sizeof garbage; i++)
		garbage[i] = (unsigned char)(i * 7919u >> 3);
	write_file(junk, garbage, sizeof garbage);
	r = store_open(junk, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, "not a sqlite database") && strstr(err, junk),
	     "a garbage file is refused with -EINVAL (%d: %s)", r, err);
	back = slurp(junk, &len);
	t_ok(back && len == sizeof garbage && memcmp(back, garbage, len) == 0 &&
	     access(junk_wal, F_OK) != 0, "the garbage file is left untouched");
	free(back);
	write_file(junk, "hello\n", 6);
	r = store_open(junk, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db, "a short text file is refused with -EINVAL (%d: %s)", r, err);

	/* Another application's sqlite database. */
	sq_exec(foreign, "CREATE TABLE t (x)");
	r = store_open(foreign, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, "not a sandproof results database"),
	     "another application's database is refused (%d: %s)", r, err);

	r = store_open(base, &db, err, sizeof err);
	t_ok(r == -EISDIR && !db && strstr(err, base), "a directory is refused (%d: %s)", r, err);
	r = store_open_readonly(missing, &db, err, sizeof err);
	t_ok(r == -ENOENT && !db && access(missing, F_OK) != 0,
	     "store_open_readonly of a missing file: -ENOENT, nothing created (%d: %s)", r, err);
	write_file(empty, "", 0);
	r = store_open_readonly(empty, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db, "store_open_readonly of an empty file: -EINVAL (%d: %s)", r, err);

	/* Permissions: root reads and writes anything, so these need a user. */
	r = store_open(locked, &db, err, sizeof err);
	store_close(db);
	db = NULL;
	if (geteuid() == 0) {
		t_skipped("unreadable database: root bypasses file modes");
		t_skipped("read-only database: root bypasses file modes");
		return;
	}
	chmod(locked, 0);
	r = store_open(locked, &db, err, sizeof err);
	t_ok(r == -EACCES && !db && strstr(err, locked),
	     "an unreadable database is refused with -EACCES (%d: %s)", r, err);
	chmod(locked, 0444);
	r = store_open(locked, &db, err, sizeof err);
	t_ok(r == -EACCES && !db, "a read-only database is refused for writing (%d: %s)", r, err);
	store_close(db);
}

/* ---- a result round-trips ------------------------------------------------------ */

struct got {
	int n;
	struct store_result_row row;
	char s[10][256];      /* copies of the row's strings */
};

static void keep(char *dst, const char *src)
{
	snprintf(dst, 256, "%s", src ? src : "(null)");
}

static int grab_row(const struct store_result_row *row, void *ctx)
{
	struct got *g = ctx;

	if (g->n++)
		return 0;
	g->row = *row;
	keep(g->s[0], row->result.runner);
	keep(g->s[1], row->result.scenario_id);
	keep(g->s[2], row->result.verdict);
	keep(g->s[3], row->result.expected);
	keep(g->s[4], row->result.observed);
	keep(g->s[5], row->result.reason);
	keep(g->s[6], row->result.finished_at);
	keep(g->s[7], row->area);
	keep(g->s[8], row->claim);
	keep(g->s[9], row->clauses);
	return 0;
}

static const struct store_evidence ev1[] = {
	{ "probe", "{\"op\":\"connect\",\"ok\":false,\"errno\":\"ECONNREFUSED\"}\n"
		   "{\"op\":\"getpid\",\"ok\":true}" },
	{ "stderr", "sandproof-ref: \"quoted\" \xc3\xa9t\xc3\xa9 line\n\ttab" },
	{ "note", "" },
};

struct ev_got {
	int n, same;
};

static int check_ev(int64_t id, const struct store_evidence *ev, void *ctx)
{
	struct ev_got *g = ctx;

	(void)id;
	if (g->n < 3 && streq(ev->kind, ev1[g->n].kind) && streq(ev->body, ev1[g->n].body))
		g->same++;
	g->n++;
	return 0;
}

struct scen_got {
	const struct store_scenario *want;
	int n, same;
};

/* Counts the scenarios, and those equal to *want in every column. */
static int check_scen(const struct store_scenario *sc, void *ctx)
{
	struct scen_got *g = ctx;
	const struct store_scenario *w = g->want;

	g->n++;
	g->same += streq(sc->id, w->id) && streq(sc->area, w->area) &&
		   streq(sc->clauses, w->clauses) && streq(sc->claim, w->claim) &&
		   streq(sc->file, w->file) && streq(sc->expect_json, w->expect_json);
	return 0;
}

static int64_t count_results(const char *path)
{
	return sq_int(path, "SELECT count(*) FROM result");
}

/* Puts the scenario and two results (one with evidence, one with every
 * optional column NULL) into run res->run_id, and reads them back. */
static void roundtrip_rows(struct store *db, const char *path, struct store_result *res)
{
	struct store_scenario sc = sc1;
	struct scen_got sg = { .want = &sc };
	struct got g = { 0 };
	struct ev_got eg = { 0 };
	int64_t run_id = res->run_id, id, id2;
	int r, n;

	r = store_put_scenario(db, &sc);
	t_ok(r == 0, "store_put_scenario inserts (%d %s)", r, store_get_error(db));
	id = store_add_result(db, res, ev1, 3);
	t_ok(id > 0, "store_add_result with 3 evidence rows (%lld %s)", (long long)id, store_get_error(db));

	r = store_read_results(db, run_id, grab_row, &g);
	t_ok(r == 0 && g.n == 1 && g.row.id == id, "store_read_results returns the row (%d rows)", g.n);
	t_ok(g.row.result.run_id == run_id && streq(g.s[0], "ref") && streq(g.s[1], sc1.id) &&
	     streq(g.s[2], "pass") && streq(g.s[3], "pass") && streq(g.s[4], res->observed) &&
	     streq(g.s[5], "(null)") && streq(g.s[6], res->finished_at),
	     "its text columns round-trip");
	t_ok(g.row.result.attempts == 200 && g.row.result.windows_hit == 13 &&
	     g.row.result.min_windows == 10 && g.row.result.seed == 424242 &&
	     g.row.result.duration_ms == 1234, "its numbers round-trip");
	t_ok(streq(g.s[7], "net") && streq(g.s[8], sc1.claim) && streq(g.s[9], "NET-1,NET-2"),
	     "the row carries its scenario's area, claim and clauses");
	r = store_read_evidence(db, id, check_ev, &eg);
	t_ok(r == 0 && eg.n == 3 && eg.same == 3, "the evidence round-trips in order (%d/%d)",
	     eg.same, eg.n);

	/* Optional columns stored as NULL and read back as -1 / NULL. */
	res->windows_hit = -1;
	res->min_windows = -1;
	res->duration_ms = -1;
	res->observed = NULL;
	res->verdict = "skip";
	res->reason = "needs unprivileged user namespaces";
	res->finished_at = NULL;
	id2 = store_add_result(db, res, NULL, 0);
	t_ok(id2 > id, "a result without evidence (%lld %s)", (long long)id2, store_get_error(db));
	t_ok(sq_int(path, "SELECT count(*) FROM result WHERE windows_hit IS NULL AND min_windows"
		    " IS NULL AND duration_ms IS NULL AND observed IS NULL") == 1,
	     "negative optional numbers are stored as NULL");
	n = 0;
	r = store_read_results(db, run_id, count_rows, &n);
	t_ok(r == 0 && n == 2, "both results listed (%d)", n);
	r = store_read_results(db, run_id, stop_at_first, NULL);
	t_ok(r == 7, "a callback's nonzero return stops the walk and is returned (%d)", r);
	t_ok(sq_int(path, "SELECT count(*) FROM result WHERE reason IS NOT NULL AND"
		    " finished_at LIKE '____-__-__T__:__:__.___Z'") == 1,
	     "finished_at NULL means now, in ISO 8601");

	/* Upsert: one row per scenario id, the last put wins. */
	sc.claim = "A sandboxed command cannot connect to 127.0.0.1 on the host.";
	r = store_put_scenario(db, &sc);
	memset(&g, 0, sizeof g);
	store_read_results(db, run_id, grab_row, &g);
	t_ok(r == 0 && sq_int(path, "SELECT count(*) FROM scenario") == 1 && streq(g.s[8], sc.claim),
	     "store_put_scenario replaces the scenario with the same id");
	r = store_read_scenarios(db, check_scen, &sg);
	t_ok(r == 0 && sg.n == 1 && sg.same == 1,
	     "store_read_scenarios reads it back, every column (%d: %d of %d)", r, sg.same, sg.n);
}

/* Refusals leave nothing behind: the transaction is all or nothing. */
static void roundtrip_refusals(struct store *db, const char *path, struct store_result *res)
{
	struct store_evidence bad_ev[] = { { "note", "a" }, { "gossip", "b" } };
	int64_t id, before, ev_before, run_id = res->run_id;

	before = count_results(path);
	ev_before = sq_int(path, "SELECT count(*) FROM evidence");
	res->verdict = "maybe";
	id = store_add_result(db, res, ev1, 3);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "CHECK"),
	     "an unknown verdict is refused (%lld: %s)", (long long)id, store_get_error(db));
	res->verdict = "fail";
	res->impact = "escape";
	id = store_add_result(db, res, bad_ev, 2);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "evidence[1]"),
	     "an unknown evidence kind is refused (%lld: %s)", (long long)id, store_get_error(db));
	t_ok(count_results(path) == before &&
	     sq_int(path, "SELECT count(*) FROM evidence") == ev_before,
	     "neither left a result or evidence row behind");
	res->scenario_id = "no.such.scenario";
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL, "a result for an unknown scenario is refused (%lld: %s)",
	     (long long)id, store_get_error(db));
	res->scenario_id = sc1.id;
	res->run_id = 999;
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL, "a result for an unknown run is refused (%lld: %s)",
	     (long long)id, store_get_error(db));
	res->run_id = run_id;
	res->impact = NULL;
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "CHECK"),
	     "a fail without an impact class is refused (%lld: %s)", (long long)id, store_get_error(db));
	res->impact = "scary";
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "CHECK"),
	     "an unknown impact class is refused (%lld: %s)", (long long)id, store_get_error(db));
	res->verdict = "pass";
	res->impact = "escape";
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "CHECK"),
	     "an impact class on a pass is refused (%lld: %s)", (long long)id, store_get_error(db));
	res->verdict = "fail";
	res->runner = NULL;
	id = store_add_result(db, res, NULL, 0);
	t_ok(id == -EINVAL && strstr(store_get_error(db), "runner"),
	     "a result without a runner is refused (%lld: %s)", (long long)id, store_get_error(db));
	res->runner = "ref";
	t_ok(store_add_result(db, res, NULL, 0) > 0, "the handle still works after refusals (%s)",
	     store_get_error(db));
	t_ok(sq_int(path, "SELECT count(*) FROM result WHERE verdict = 'fail' AND impact = 'escape'") == 1,
	     "a fail is stored with its class");
}

/* Listing by run, and the read-only handle. */
static void roundtrip_reads(struct store *db, const char *path, struct store_result *res)
{
	struct store *ro = NULL;
	char err[512];
	int64_t id, run_id = res->run_id;
	int r, n;

	/* A second run's results are not listed under the first. */
	id = store_begin_run(db, &run1);
	res->run_id = id;
	store_add_result(db, res, NULL, 0);
	n = 0;
	store_read_results(db, run_id, count_rows, &n);
	r = n;
	n = 0;
	store_read_results(db, 0, count_rows, &n);
	t_ok(r == 3 && n == 4, "store_read_results filters by run (%d of %d)", r, n);

	/* The read-only handle reports use. */
	r = store_open_readonly(path, &ro, err, sizeof err);
	t_ok(r == 0, "store_open_readonly (%d %s)", r, err);
	n = 0;
	r = ro ? store_read_results(ro, 0, count_rows, &n) : -1;
	t_ok(r == 0 && n == 4, "it reads every result (%d)", n);
	id = store_add_result(ro, res, NULL, 0);
	t_ok(id == -EBADF, "it refuses writes with -EBADF (%lld)", (long long)id);
	store_close(ro);
}

static void test_roundtrip(void)
{
	PATH(path, "round.sqlite");
	struct store *db = NULL;
	struct store_result res = {
		.runner = "ref", .scenario_id = sc1.id, .verdict = "pass",
		.expected = "pass", .observed = "connect 127.0.0.1:8080: ECONNREFUSED",
		.reason = NULL, .attempts = 200, .windows_hit = 13, .min_windows = 10,
		.seed = 424242, .duration_ms = 1234,
		.finished_at = "2025-06-01T12:34:56.789Z",
	};
	char err[512];

	if (!t_ok(store_open(path, &db, err, sizeof err) == 0, "open (%s)", err))
		return;
	res.run_id = store_begin_run(db, &run1);
	roundtrip_rows(db, path, &res);
	roundtrip_refusals(db, path, &res);
	roundtrip_reads(db, path, &res);
	store_close(db);
	t_ok(streq(sq_text(path, "PRAGMA integrity_check", err, sizeof err), "ok"),
	     "integrity_check: %s", err);
}

/* The store's list of classes and the schema's CHECK name the same ones,
 * hardening third (after escape and exposure). */
static void test_classes(void)
{
	PATH(path, "classes.sqlite");
	struct store *db = NULL;
	struct store_result res = {
		.runner = "ref", .scenario_id = sc1.id, .verdict = "fail", .expected = "denied",
		.observed = "x", .attempts = 1, .windows_hit = -1, .min_windows = -1,
		.duration_ms = -1,
	};
	char err[512];
	int64_t id;

	if (!t_ok(store_open(path, &db, err, sizeof err) == 0, "open (%s)", err))
		return;
	store_put_scenario(db, &sc1);
	res.run_id = store_begin_run(db, &run1);
	for (int c = 0; c < STORE_N_IMPACTS; c++) {
		res.impact = store_impacts[c];
		id = store_add_result(db, &res, NULL, 0);
		t_ok(id > 0 && store_impact_index(store_impacts[c]) == c,
		     "the class %s is accepted and indexed (%lld: %s)", store_impacts[c],
		     (long long)id, store_get_error(db));
	}
	store_close(db);
	t_ok(count_results(path) == STORE_N_IMPACTS && store_impact_index("hardening") == 2 &&
	     sq_int(path, "SELECT count(DISTINCT impact) FROM result") == STORE_N_IMPACTS,
	     "every class of store_impacts stored once; hardening is the third");
}

/* ---- a lock held by another process; a corrupt file ---------------------------- */

/* Forks a child that holds the write lock on path (BEGIN IMMEDIATE on a raw
 * connection) until *release is closed.  Returns its pid once it holds the
 * lock, or -1. */
static pid_t lock_hold(const char *path, int *release)
{
	int up[2], down[2];
	char c = 0;
	pid_t pid, parent = getpid();

	if (pipe(up) || pipe(down))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sqlite3 *h = NULL;

		/* Never outlives the test: a dead test closes down[1], and the
		 * read below then returns. */
		if (getppid() != parent)
			_exit(3);
		close(up[0]);
		close(down[1]);
		if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(2);
		if (write(up[1], "L", 1) != 1 || read(down[0], &c, 1) < 0)
			_exit(2);
		_exit(0);       /* the lock goes with the process */
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0 || read(up[0], &c, 1) != 1 || c != 'L') {
		close(up[0]);
		close(down[1]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	close(up[0]);
	*release = down[1];
	return pid;
}

static void test_locked(void)
{
	PATH(path, "held.sqlite");
	struct store *db = NULL;
	struct store_result res = {
		.runner = "ref", .scenario_id = sc1.id, .verdict = "pass", .expected = "pass",
		.attempts = 1, .windows_hit = -1, .min_windows = -1, .duration_ms = -1,
	};
	int64_t run_id, r1, r2, r3, r4;
	int release = -1, st = 0;
	char err[512];
	pid_t pid;

	if (!t_ok(store_open_wait(path, 200, &db, err, sizeof err) == 0, "open with a 200 ms bound (%s)", err))
		return;
	run_id = store_begin_run(db, &run1);
	res.run_id = run_id;
	store_put_scenario(db, &sc1);
	pid = lock_hold(path, &release);
	if (!t_ok(pid > 0, "another process holds the write lock")) {
		store_close(db);
		return;
	}
	r1 = store_begin_run(db, &run1);
	t_ok(r1 == -EBUSY && strstr(store_get_error(db), "locked by another process (waited 0.2 s)"),
	     "store_begin_run gives up after the bound: -EBUSY (%lld: %s)", (long long)r1, store_get_error(db));
	r2 = store_put_scenario(db, &sc1);
	t_ok(r2 == -EBUSY, "store_put_scenario too (%lld)", (long long)r2);
	r3 = store_add_result(db, &res, ev1, 3);
	t_ok(r3 == -EBUSY, "store_add_result with evidence too (%lld)", (long long)r3);
	r4 = store_finish_run(db, run_id, NULL);
	t_ok(r4 == -EBUSY, "store_finish_run too (%lld)", (long long)r4);
	close(release);
	waitpid(pid, &st, 0);
	t_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the holder let go (status %#x)", st);
	t_ok(sq_int(path, "SELECT count(*) FROM run") == 1 && count_results(path) == 0 &&
	     sq_int(path, "SELECT count(*) FROM evidence") == 0,
	     "nothing of the refused writes was recorded");
	r3 = store_add_result(db, &res, ev1, 3);
	t_ok(r3 > 0 && store_finish_run(db, run_id, NULL) == 0 &&
	     sq_int(path, "SELECT count(*) FROM evidence") == 3,
	     "once released the same handle records (%lld %s)", (long long)r3, store_get_error(db));
	store_close(db);
}

/* Makes path a database with one result, then overwrites the root page of
 * the index result_by_scenario_runner: with garbage (how 0), or only by
 * changing one byte of the scenario id it holds (how 1), which leaves every
 * page well formed but the index disagreeing with its table.  The header and
 * every table page stay intact, so only an integrity check can tell.  How 2:
 * garbage over the schema (page 1 after its 100-byte file header).  Returns
 * 0 or -1. */
static int corrupt_make(const char *path, int how)
{
	struct store *db = NULL;
	struct store_result res = {
		.runner = "ref", .scenario_id = sc1.id, .verdict = "pass", .expected = "pass",
		.attempts = 1, .windows_hit = -1, .min_windows = -1, .duration_ms = -1,
	};
	unsigned char page[4096], *hit;
	int64_t root, psize;
	off_t at;
	char err[512];
	size_t i;
	int fd, ok;

	if (store_open(path, &db, err, sizeof err))
		return -1;
	res.run_id = store_begin_run(db, &run1);
	ok = store_put_scenario(db, &sc1) == 0 && store_add_result(db, &res, ev1, 3) > 0;
	store_close(db);  /* the last close checkpoints the WAL into the file */
	root = sq_int(path, "SELECT rootpage FROM sqlite_master WHERE name = 'result_by_scenario_runner'");
	psize = sq_int(path, "PRAGMA page_size");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (!ok || fd < 0 || root < 2 || psize != (int64_t)sizeof page) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	at = how == 2 ? 0 : (off_t)((root - 1) * psize);
	ok = pread(fd, page, sizeof page, at) == (ssize_t)sizeof page;
	hit = memmem(page, sizeof page, sc1.id, strlen(sc1.id));
	if (how == 1 && hit)
		hit[0] ^= 1;    /* 'n' -> 'o': a key no result has */
	for (i = how == 2 ? 100 : 0; how != 1 && i < sizeof page; i++)
		page[i] = (unsigned char)(i * 131u + 7u);
	ok = ok && (hit || how != 1) &&
	     pwrite(fd, page, sizeof page, at) == (ssize_t)sizeof page;
	close(fd);
	return ok ? 0 : -1;
}

static void test_corrupt(void)
{
	PATH(garbled, "garbled.sqlite");
	PATH(subtle, "subtle.sqlite");
	PATH(schema, "schema.sqlite");
	struct store *db = NULL;
	char err[512], *before, *after;
	size_t n_before = 0, n_after = 0;
	int r;

	if (!t_ok(corrupt_make(garbled, 0) == 0 && corrupt_make(subtle, 1) == 0 &&
		  corrupt_make(schema, 2) == 0, "made three corrupt databases"))
		return;
	before = slurp(garbled, &n_before);
	r = store_open(garbled, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, garbled) && strstr(err, "corrupt database"),
	     "store_open refuses a database with a garbage page by name (%d: %s)", r, err);
	after = slurp(garbled, &n_after);
	t_ok(before && after && n_before == n_after && memcmp(before, after, n_after) == 0,
	     "and leaves it untouched");
	free(before);
	free(after);
	r = store_open_readonly(garbled, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, "corrupt database"),
	     "store_open_readonly refuses it too (%d: %s)", r, err);
	r = store_open(subtle, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, subtle) &&
	     strstr(err, "corrupt database (integrity_check: ") && strstr(err, "result_by_scenario_runner"),
	     "store_open refuses an index that disagrees with its table, naming it (%d: %s)", r, err);
	r = store_open_readonly(subtle, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db, "store_open_readonly too (%d)", r);
	r = store_open(schema, &db, err, sizeof err);
	t_ok(r == -EINVAL && !db && strstr(err, "corrupt database") &&
	     !strstr(err, "not a sqlite database"),
	     "a garbled schema page is called corrupt, not foreign (%d: %s)", r, err);
}

/* ---- SIGKILL mid-run ------------------------------------------------------------ */

/* The child: records results as fast as it can and reports each id on fd
 * once store_add_result() has returned it, i.e. once it is committed. */
static void __attribute__((noreturn)) writer(const char *path, int fd, pid_t parent)
{
	static char tail[4096];
	struct store_evidence ev[3] = {
		{ "probe", "{\"op\":\"write\",\"ok\":false,\"errno\":\"EACCES\"}" },
		{ "stderr", tail },
		{ "census", "+ /tmp/x" },
	};
	struct store_result res = {
		.runner = "ref", .scenario_id = sc1.id, .verdict = "pass",
		.expected = "pass", .attempts = 1, .windows_hit = -1, .min_windows = -1,
		.duration_ms = 3,
	};
	struct store *db = NULL;
	char err[512];
	int64_t id;
	long i;

	/* Never outlive the test, whatever happens to it: a dead test
	 * closes the pipe's read end, and the next write ends this loop. */
	if (getppid() != parent)
		_exit(3);
	memset(tail, 'e', sizeof tail - 1);
	if (store_open(path, &db, err, sizeof err) || store_put_scenario(db, &sc1))
		_exit(2);
	res.run_id = store_begin_run(db, &run1);
	if (res.run_id <= 0)
		_exit(2);
	for (i = 0; i < 1000000; i++) {
		res.seed = i;
		id = store_add_result(db, &res, ev, 3);
		if (id <= 0 || write(fd, &id, sizeof id) != sizeof id)
			_exit(2);
	}
	_exit(0);
}

/* What the killed writer left: a sound file holding every result it was
 * told was committed, each with all its evidence. */
static void sigkill_verify(const char *path, const int64_t *ids, size_t n_ids)
{
	struct store *db = NULL;
	size_t i, missing = 0;
	char err[512], sql[128];
	int n;

	t_ok(streq(sq_text(path, "PRAGMA integrity_check", err, sizeof err), "ok"),
	     "integrity_check after the kill: %s", err);
	t_ok(store_open(path, &db, err, sizeof err) == 0, "store_open after the kill (%s)", err);
	store_close(db);
	for (i = 0; ids && i < n_ids; i++) {
		snprintf(sql, sizeof sql, "SELECT count(*) FROM result WHERE id = %lld",
			 (long long)ids[i]);
		if (sq_int(path, sql) != 1)
			missing++;
	}
	t_ok(n_ids >= KILL_AFTER && missing == 0,
	     "every result reported committed is present (%zu reported, %zu missing, %lld in db)",
	     n_ids, missing, (long long)count_results(path));
	n = (int)sq_int(path, "SELECT count(*) FROM result AS r WHERE"
			" (SELECT count(*) FROM evidence WHERE result_id = r.id) != 3");
	t_ok(n == 0, "no result lost part of its evidence (%d)", n);
	t_ok(sq_int(path, "SELECT count(*) FROM pragma_foreign_key_check") == 0 &&
	     sq_int(path, "SELECT count(*) FROM run WHERE finished_at IS NULL") == 1,
	     "no dangling rows; the killed run has no finished_at");
}

static void test_sigkill(void)
{
	PATH(path, "killed.sqlite");
	struct store *ro = NULL;
	int64_t *ids = NULL, id;
	size_t n_ids = 0, cap = 0;
	int pfd[2], st = 0, killed = 0, live = -1;
	char err[512];
	struct pollfd pf;
	pid_t pid;
	time_t deadline = time(NULL) + 60;
	ssize_t got;

	if (pipe(pfd) != 0) {
		t_ok(0, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		t_ok(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		writer(path, pfd[1], getppid());
	}
	close(pfd[1]);
	pf.fd = pfd[0];
	pf.events = POLLIN;
	for (;;) {
		if (!killed && n_ids >= KILL_AFTER) {
			/* Meanwhile a reader sees the committed rows (WAL lets it). */
			if (store_open_readonly(path, &ro, err, sizeof err) == 0) {
				live = 0;
				store_read_results(ro, 0, count_rows, &live);
			}
			store_close(ro);
			/* Let it run a little on, so the kill lands at an
			 * arbitrary point of a transaction. */
			usleep(1000 + (unsigned)(time(NULL) ^ getpid()) % 4000);
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (!killed && time(NULL) > deadline) {
			kill(pid, SIGKILL);
			killed = 2;
		}
		if (poll(&pf, 1, 1000) < 0 && errno != EINTR)
			break;
		got = read(pfd[0], &id, sizeof id);
		if (got == 0)
			break;          /* the child is gone and everything is read */
		if (got != (ssize_t)sizeof id)
			continue;
		if (n_ids == cap) {
			cap = cap ? cap * 2 : 256;
			ids = realloc(ids, cap * sizeof *ids);
			if (!ids)
				break;
		}
		ids[n_ids++] = id;
	}
	close(pfd[0]);
	waitpid(pid, &st, 0);
	t_ok(killed == 1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	     "the writer was SIGKILLed mid-run after %d results (status %#x)", KILL_AFTER, st);
	t_ok(live >= KILL_AFTER, "a read-only handle saw %d results while the writer ran", live);
	sigkill_verify(path, ids, n_ids);
	free(ids);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/reports/schema.sql\n", argv[0]);
		return 2;
	}
	snprintf(base, sizeof base, "%s/test_store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		fprintf(stderr, "mkdtemp %s: %s\n", base, strerror(errno));
		return 1;
	}
	test_schema(argv[1]);
	test_create();
	test_refuse();
	test_roundtrip();
	test_classes();
	test_locked();
	test_corrupt();
	test_sigkill();
	cleanup();
	return t_done();
}
