/* merge.c - `sandproof merge A.sqlite B.sqlite ... -o ALL.sqlite [--force]`
 * (report.h): joins per-OS databases into one cross-platform database.
 *
 * Every database is reached through the store (sandproof/store.h).  Inputs
 * are opened read-only (store_open_readonly refuses missing, foreign, corrupt
 * and newer-schema files before anything is written).  Every run is copied
 * with its OS and times, under a new id, with its results and evidence;
 * a run already copied (same os, started_at, harness version, seed and
 * runners: the same database given twice, or a merged one merged again) is
 * skipped.  Scenarios are the union; a scenario in several inputs takes the
 * last input's columns and the union of their expect_json objects (each
 * input knows its own OS's expectation best).
 *
 * The output is built in a temporary file beside it and moved into place only
 * when complete: without --force by link(), which fails if the output exists
 * by then, so an existing file is never replaced, not even by a race. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "sandproof/store.h"

struct merge_scen {
	char *id, *area, *clauses, *claim, *file;
	cJSON *expect;               /* object */
};

struct merge {
	struct merge_scen *sc;
	size_t n_sc;
	char **runs;                 /* identity keys of copied runs */
	size_t n_runs;
	struct store *out;
	struct store *in;
	const char *in_path;
	int64_t new_run;
	size_t copied_runs, copied_results, skipped_runs;
	int oom;
	char err[1024];
};

static struct merge_scen *scen_find(struct merge *m, const char *id)
{
	for (size_t i = 0; i < m->n_sc; i++)
		if (!strcmp(m->sc[i].id, id))
			return &m->sc[i];
	return NULL;
}

static char *dupn(const char *s, int *oom)
{
	char *d = strdup(s ? s : "");

	if (!d)
		*oom = 1;
	return d;
}

static void scen_set(struct merge_scen *x, const char *area, const char *clauses,
		     const char *claim, const char *file, int *oom)
{
	free(x->area); free(x->clauses); free(x->claim); free(x->file);
	x->area = dupn(area, oom);
	x->clauses = dupn(clauses, oom);
	x->claim = dupn(claim, oom);
	x->file = file ? dupn(file, oom) : NULL;
}

/* One scenario row of an input: added, or merged into the one an earlier
 * input gave (its columns replaced, its expect_json objects joined). */
static int on_scenario(const struct store_scenario *sc, void *ctx)
{
	struct merge *m = ctx;
	cJSON *ex = cJSON_Parse(sc->expect_json);
	struct merge_scen *x = scen_find(m, sc->id);

	if (!x) {
		void *p = realloc(m->sc, (m->n_sc + 1) * sizeof *m->sc);

		if (!p) {
			cJSON_Delete(ex);
			m->oom = 1;
			return -ENOMEM;
		}
		m->sc = p;
		x = &m->sc[m->n_sc++];
		memset(x, 0, sizeof *x);
		x->id = dupn(sc->id, &m->oom);
		x->expect = cJSON_CreateObject();
	}
	scen_set(x, sc->area, sc->clauses, sc->claim, sc->file, &m->oom);
	/* union of the platforms' expectations, this input's winning */
	for (cJSON *e = cJSON_IsObject(ex) ? ex->child : NULL; e && x->expect; e = e->next) {
		cJSON *d = cJSON_Duplicate(e, 1);

		cJSON_DeleteItemFromObjectCaseSensitive(x->expect, e->string);
		if (!d || !cJSON_AddItemToObject(x->expect, e->string, d)) {
			cJSON_Delete(d);
			m->oom = 1;
		}
	}
	if (!x->expect)
		m->oom = 1;
	cJSON_Delete(ex);
	return m->oom ? -ENOMEM : 0;
}

/* Reads the scenario table of the input db (at path) into m->sc. */
static int scen_read(struct merge *m, struct store *db, const char *path)
{
	int r = store_read_scenarios(db, on_scenario, m);

	if (m->oom) {
		snprintf(m->err, sizeof m->err, "out of memory");
		return -ENOMEM;
	}
	if (r)
		snprintf(m->err, sizeof m->err, "%s: reading scenarios: %s", path,
			 store_get_error(db));
	return r ? -EIO : 0;
}

static int scen_put(struct merge *m, const struct merge_scen *x)
{
	char *ex = cJSON_PrintUnformatted(x->expect);
	struct store_scenario sc = {
		.id = x->id, .area = x->area, .clauses = x->clauses, .claim = x->claim,
		.file = x->file, .expect_json = ex ? ex : "{}",
	};
	int r = store_put_scenario(m->out, &sc);

	free(ex);
	if (r)
		snprintf(m->err, sizeof m->err, "scenario %s: %s", x->id, store_get_error(m->out));
	return r;
}

/* ---- runs, results, evidence ------------------------------------------- */

struct evs {
	struct store_evidence *v;
	size_t n;
	int oom;
};

static int on_evidence(int64_t id, const struct store_evidence *ev, void *ctx)
{
	struct evs *e = ctx;
	void *p = realloc(e->v, (e->n + 1) * sizeof *e->v);

	(void)id;
	if (!p)
		return -ENOMEM;
	e->v = p;
	e->v[e->n].kind = strdup(ev->kind);
	e->v[e->n].body = strdup(ev->body);
	if (!e->v[e->n].kind || !e->v[e->n].body)
		e->oom = 1;
	e->n++;
	return e->oom ? -ENOMEM : 0;
}

/* A result whose scenario row is missing from its input gets a stand-in
 * row, so the copy satisfies the foreign key and says what it lacks. */
static int scen_standin(struct merge *m, const char *id)
{
	const char *dot = strchr(id, '.');
	struct merge_scen x = {
		.id = (char *)id, .area = dot ? strndup(id, (size_t)(dot - id)) : strdup("unknown"),
		.clauses = (char *)"", .claim = (char *)"(scenario row missing from its database)",
		.expect = cJSON_CreateObject(),
	};
	void *p = realloc(m->sc, (m->n_sc + 1) * sizeof *m->sc);
	int r = -ENOMEM;

	if (p && x.area && x.expect) {
		m->sc = p;
		r = scen_put(m, &x);
		if (r == 0) {
			struct merge_scen *y = &m->sc[m->n_sc++];

			memset(y, 0, sizeof *y);
			y->id = dupn(id, &m->oom);
			scen_set(y, x.area, "", x.claim, NULL, &m->oom);
			y->expect = x.expect;
			x.expect = NULL;
		}
	} else if (p) {
		m->sc = p;
	}
	free(x.area);
	cJSON_Delete(x.expect);
	return r;
}

static int on_result(const struct store_result_row *row, void *ctx)
{
	struct merge *m = ctx;
	struct store_result res = row->result;
	struct evs e = {0};
	int64_t id;
	int r = 0;

	if (!scen_find(m, res.scenario_id))
		r = scen_standin(m, res.scenario_id);
	if (r == 0)
		r = store_read_evidence(m->in, row->id, on_evidence, &e);
	if (r == 0) {
		res.run_id = m->new_run;
		id = store_add_result(m->out, &res, e.v, e.n);
		if (id < 0) {
			r = (int)id;
			snprintf(m->err, sizeof m->err, "%s: result %lld: %s", m->in_path,
				 (long long)row->id, store_get_error(m->out));
		}
	} else if (!m->err[0]) {
		snprintf(m->err, sizeof m->err, "%s: result %lld: %s", m->in_path,
			 (long long)row->id, store_get_error(m->in)[0] ? store_get_error(m->in)
								      : strerror(-r));
	}
	for (size_t k = 0; k < e.n; k++) {
		free((char *)e.v[k].kind);
		free((char *)e.v[k].body);
	}
	free(e.v);
	m->copied_results += r == 0;
	return r;
}

static int on_run(const struct store_run_row *row, void *ctx)
{
	struct merge *m = ctx;
	const struct store_run *x = &row->run;
	char *key = NULL;
	void *p;
	int r;

	if (asprintf(&key, "%s\n%s\n%s\n%lld\n%s", x->os, x->started_at, x->harness_version,
		     (long long)x->seed, x->runners) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_runs; i++)
		if (!strcmp(m->runs[i], key)) {
			fprintf(stderr, "sandproof: merge: %s: run %lld (%s, started %s) is already "
				"in the output; skipped\n", m->in_path, (long long)row->id, x->os,
				x->started_at);
			m->skipped_runs++;
			free(key);
			return 0;
		}
	p = realloc(m->runs, (m->n_runs + 1) * sizeof *m->runs);
	if (!p) {
		free(key);
		return -ENOMEM;
	}
	m->runs = p;
	m->runs[m->n_runs++] = key;
	m->new_run = store_begin_run(m->out, x);
	if (m->new_run < 0) {
		snprintf(m->err, sizeof m->err, "%s: run %lld: %s", m->in_path, (long long)row->id,
			 store_get_error(m->out));
		return (int)m->new_run;
	}
	r = store_read_results(m->in, row->id, on_result, m);
	if (r == 0 && row->finished_at && store_finish_run(m->out, m->new_run, row->finished_at)) {
		snprintf(m->err, sizeof m->err, "run finish: %s", store_get_error(m->out));
		r = -EIO;
	}
	m->copied_runs += r == 0;
	return r;
}

/* ---- the command ----------------------------------------------------------- */

static void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->n_sc; i++) {
		free(m->sc[i].id); free(m->sc[i].area); free(m->sc[i].clauses);
		free(m->sc[i].claim); free(m->sc[i].file);
		cJSON_Delete(m->sc[i].expect);
	}
	free(m->sc);
	for (size_t i = 0; i < m->n_runs; i++)
		free(m->runs[i]);
	free(m->runs);
}

static void unlink_db(const char *path)
{
	char side[PATH_MAX + 8];

	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
}

/* Copies every input into the database at tmp; returns an exit status. */
static int merge_into(struct merge *m, const char *tmp, char **in, int n_in)
{
	char err[1024];
	int r = 0;

	/* identify every input, and read its scenarios, before writing anything */
	for (int k = 0; k < n_in && r == 0; k++) {
		struct store *db = NULL;

		r = store_open_readonly(in[k], &db, err, sizeof err);
		if (r) {
			fprintf(stderr, "sandproof: %s\n", err);
			return REPORT_EXIT_USAGE;
		}
		r = scen_read(m, db, in[k]);
		store_close(db);
		if (r) {
			fprintf(stderr, "sandproof: merge: %s\n", m->err);
			return m->oom ? REPORT_EXIT_INTERNAL : REPORT_EXIT_USAGE;
		}
	}
	r = store_open(tmp, &m->out, err, sizeof err);
	if (r) {
		fprintf(stderr, "sandproof: merge: %s\n", err);
		return REPORT_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < m->n_sc && r == 0; i++)
		r = scen_put(m, &m->sc[i]);
	for (int k = 0; k < n_in && r == 0; k++) {
		r = store_open_readonly(in[k], &m->in, err, sizeof err);
		if (r) {
			snprintf(m->err, sizeof m->err, "%s", err);
			break;
		}
		m->in_path = in[k];
		r = store_read_runs(m->in, on_run, m);
		if (r && !m->err[0])
			snprintf(m->err, sizeof m->err, "%s: %s", in[k], store_get_error(m->in)[0]
				 ? store_get_error(m->in) : strerror(-r));
		store_close(m->in);
		m->in = NULL;
	}
	if (store_close(m->out) != 0 && r == 0) {
		snprintf(m->err, sizeof m->err, "%s: close failed", tmp);
		r = -EIO;
	}
	m->out = NULL;
	if (r) {
		fprintf(stderr, "sandproof: merge: %s\n", m->err[0] ? m->err : strerror(-r));
		return REPORT_EXIT_INTERNAL;
	}
	return 0;
}

static const char merge_usage[] =
"usage: sandproof merge A.sqlite B.sqlite ... -o ALL.sqlite [--force]\n"
"Joins results databases (one per OS) into one: every run keeps its OS and\n"
"results under a new id; runs already present are skipped.  An existing\n"
"ALL.sqlite is replaced only with --force.  Exit 0 merged, 2 usage or bad\n"
"input, 3 write error.\n";

/* Refuses an output whose -wal log holds frames, then creates the empty
 * file the merge is built in, beside out.  Returns its name (the caller
 * frees it), or NULL with the message printed and *rc set. */
static char *merge_tmp_create(const char *out, int *rc)
{
	char *tmp = NULL, *copy, side[PATH_MAX + 8];
	struct stat st;
	mode_t um;
	int fd;

	/* sqlite finds a database's log by name: a non-empty OUT-wal (a writer
	 * has OUT open, or died in it) would be replayed over the new file and
	 * corrupt it.  An empty one (and -shm) is what readers leave behind. */
	snprintf(side, sizeof side, "%s-wal", out);
	if (lstat(side, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size != 0)) {
		fprintf(stderr, "sandproof: merge: %s is not empty: %s is in use or was not "
			"closed cleanly; not replacing it\n", side, out);
		*rc = REPORT_EXIT_USAGE;
		return NULL;
	}
	copy = strdup(out);
	if (!copy || asprintf(&tmp, "%s/.merge.tmp-XXXXXX", dirname(copy)) < 0) {
		free(copy);
		fprintf(stderr, "sandproof: merge: out of memory\n");
		*rc = REPORT_EXIT_INTERNAL;
		return NULL;
	}
	free(copy);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "sandproof: merge: %s: cannot create a file beside it: %s\n", out,
			strerror(errno));
		free(tmp);
		*rc = REPORT_EXIT_USAGE;
		return NULL;
	}
	um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);      /* mkstemp made it 0600 */
	close(fd);                   /* empty: store_open gives it the schema */
	return tmp;
}

/* Moves the finished database tmp into place as out and says so; returns
 * the exit status. */
static int merge_publish(const struct merge *m, const char *tmp, const char *out, int force,
			 int n_in)
{
	char side[PATH_MAX + 8];
	int rc = 0;

	snprintf(side, sizeof side, "%s-wal", out);
	unlink(side);                /* empty, checked above: stale reader files */
	snprintf(side, sizeof side, "%s-shm", out);
	unlink(side);
	/* without --force: link() fails if the output appeared meanwhile */
	if (force ? rename(tmp, out) != 0 : link(tmp, out) != 0) {
		int e = errno;

		fprintf(stderr, "sandproof: merge: %s: %s\n", out, strerror(e));
		rc = e == EEXIST ? REPORT_EXIT_USAGE : REPORT_EXIT_INTERNAL;
	} else {
		printf("merged %zu runs (%zu results) from %d databases into %s",
		       m->copied_runs, m->copied_results, n_in, out);
		if (m->skipped_runs)
			printf("; %zu duplicate runs skipped", m->skipped_runs);
		printf("\n");
	}
	return rc;
}

int merge_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'}, {0},
	};
	struct merge m = {0};
	const char *out = NULL;
	char *tmp;
	struct stat st;
	int c, force = 0, rc = 0;

	report_getopt_reset();
	while ((c = getopt_long(argc, argv, "o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(merge_usage, stdout); return 0;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		default: fputs(merge_usage, stderr); return REPORT_EXIT_USAGE;
		}
	}
	if (!out || optind >= argc) {
		fputs(merge_usage, stderr);
		return REPORT_EXIT_USAGE;
	}
	if (!force && lstat(out, &st) == 0) {
		fprintf(stderr, "sandproof: merge: %s exists; give --force to replace it\n", out);
		return REPORT_EXIT_USAGE;
	}
	tmp = merge_tmp_create(out, &rc);
	if (!tmp)
		return rc;
	rc = merge_into(&m, tmp, argv + optind, argc - optind);
	if (rc == 0)
		rc = merge_publish(&m, tmp, out, force, argc - optind);
	unlink_db(tmp);              /* after link(): the name only; after rename: gone */
	free(tmp);
	merge_free(&m);
	return rc;
}
