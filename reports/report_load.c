/* report_load.c - a results database read into the report matrix
 * (report.h).  Read-only: the database is opened with store_open_readonly(),
 * which refuses a missing, foreign or newer-schema file untouched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/store.h"
#include "report.h"

static const char *const verdict_names[RV_N] = {
	[RV_PASS] = "pass", [RV_FAIL] = "fail", [RV_SKIP] = "skip",
	[RV_UNSUPPORTED] = "unsupported", [RV_INCONCLUSIVE] = "inconclusive",
	[RV_ERROR] = "error", [RV_NONE] = "none",
};

enum report_verdict report_verdict_parse(const char *s)
{
	for (int v = 0; s && v < RV_NONE; v++)
		if (!strcmp(s, verdict_names[v]))
			return (enum report_verdict)v;
	return RV_NONE;
}

const char *report_verdict_name(enum report_verdict v)
{
	return v < RV_N ? verdict_names[v] : "none";
}

int report_verdict_severity(enum report_verdict v)
{
	static const int sev[RV_N] = {
		[RV_PASS] = 1, [RV_SKIP] = 2, [RV_UNSUPPORTED] = 3,
		[RV_INCONCLUSIVE] = 4, [RV_ERROR] = 5, [RV_FAIL] = 6, [RV_NONE] = 0,
	};
	return v < RV_N ? sev[v] : 0;
}

/* strdup keeping NULL; *oom set on failure. */
static char *dup(const char *s, int *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = 1;
	return d;
}

static void res_free(struct report_res *r)
{
	free(r->os); free(r->runner); free(r->scenario_id); free(r->verdict);
	free(r->expected); free(r->observed); free(r->reason); free(r->impact); free(r->finished_at);
	free(r->area); free(r->clauses); free(r->claim);
	for (size_t i = 0; i < r->n_ev; i++) {
		free(r->ev[i].kind);
		free(r->ev[i].body);
	}
	free(r->ev);
	memset(r, 0, sizeof *r);
}

static void run_free(struct report_run *r)
{
	free(r->started_at); free(r->finished_at); free(r->os); free(r->kernel);
	free(r->arch); free(r->user); free(r->harness_version); free(r->git_revision);
	free(r->runners); free(r->filter); free(r->env_json);
}

void report_free(struct report_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n_res; i++)
		res_free(&set->res[i]);
	for (size_t i = 0; i < set->n_runs; i++)
		run_free(&set->runs[i]);
	free(set->res);
	free(set->runs);
	free(set->cols);
	free(set->scens);
	free(set->cells);
	free(set->source);
	memset(set, 0, sizeof *set);
}

/* ---- reading ------------------------------------------------------------ */

struct load {
	struct report_set *set;
	size_t cap_runs, cap_res;
	int oom;
};

static int on_run(const struct store_run_row *row, void *ctx)
{
	struct load *l = ctx;
	struct report_set *s = l->set;
	struct report_run *r;

	if (s->n_runs == l->cap_runs) {
		size_t cap = l->cap_runs ? 2 * l->cap_runs : 16;
		void *p = realloc(s->runs, cap * sizeof *s->runs);

		if (!p)
			return -ENOMEM;
		s->runs = p;
		l->cap_runs = cap;
	}
	r = &s->runs[s->n_runs++];
	memset(r, 0, sizeof *r);
	r->id = row->id;
	r->started_at = dup(row->run.started_at, &l->oom);
	r->finished_at = dup(row->finished_at, &l->oom);
	r->os = dup(row->run.os, &l->oom);
	r->kernel = dup(row->run.kernel, &l->oom);
	r->arch = dup(row->run.arch, &l->oom);
	r->user = dup(row->run.user, &l->oom);
	r->uid = row->run.uid;
	r->seed = row->run.seed;
	r->harness_version = dup(row->run.harness_version, &l->oom);
	r->git_revision = dup(row->run.git_revision, &l->oom);
	r->runners = dup(row->run.runners, &l->oom);
	r->filter = dup(row->run.filter, &l->oom);
	r->env_json = dup(row->run.env_json, &l->oom);
	return l->oom ? -ENOMEM : 0;
}

/* Runs come by id ascending: a binary search finds a result's run. */
static struct report_run *run_find(const struct report_set *s, int64_t id, size_t *idx)
{
	size_t lo = 0, hi = s->n_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->runs[mid].id == id) {
			if (idx)
				*idx = mid;
			return &s->runs[mid];
		}
		if (s->runs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The area of a scenario whose row is missing: its id up to the first dot. */
static char *area_guess(const char *id, int *oom)
{
	const char *dot = id ? strchr(id, '.') : NULL;
	char *a = dot ? strndup(id, (size_t)(dot - id)) : strdup("unknown");

	if (!a)
		*oom = 1;
	return a;
}

static int on_result(const struct store_result_row *row, void *ctx)
{
	struct load *l = ctx;
	struct report_set *s = l->set;
	const struct report_run *run = run_find(s, row->result.run_id, NULL);
	struct report_res *r;

	if (!run)                    /* impossible with the foreign key on */
		return 0;
	if (s->n_res == l->cap_res) {
		size_t cap = l->cap_res ? 2 * l->cap_res : 64;
		void *p = realloc(s->res, cap * sizeof *s->res);

		if (!p)
			return -ENOMEM;
		s->res = p;
		l->cap_res = cap;
	}
	r = &s->res[s->n_res++];
	memset(r, 0, sizeof *r);
	r->id = row->id;
	r->run_id = row->result.run_id;
	r->os = dup(run->os, &l->oom);
	r->runner = dup(row->result.runner, &l->oom);
	r->scenario_id = dup(row->result.scenario_id, &l->oom);
	r->verdict = dup(row->result.verdict, &l->oom);
	r->v = report_verdict_parse(row->result.verdict);
	r->expected = dup(row->result.expected, &l->oom);
	r->observed = dup(row->result.observed, &l->oom);
	r->reason = dup(row->result.reason, &l->oom);
	r->impact = dup(row->result.impact, &l->oom);
	r->finished_at = dup(row->result.finished_at, &l->oom);
	r->attempts = row->result.attempts;
	r->windows_hit = row->result.windows_hit;
	r->min_windows = row->result.min_windows;
	r->seed = row->result.seed;
	r->duration_ms = row->result.duration_ms;
	r->area = row->area ? dup(row->area, &l->oom) : area_guess(r->scenario_id, &l->oom);
	r->clauses = dup(row->clauses, &l->oom);
	r->claim = dup(row->claim, &l->oom);
	r->repeats = 1;
	return l->oom ? -ENOMEM : 0;
}

struct ev_load {
	struct report_res *r;
	int oom;
};

static int on_evidence(int64_t id, const struct store_evidence *ev, void *ctx)
{
	struct ev_load *e = ctx;
	struct report_res *r = e->r;
	void *p = realloc(r->ev, (r->n_ev + 1) * sizeof *r->ev);

	(void)id;
	if (!p)
		return -ENOMEM;
	r->ev = p;
	r->ev[r->n_ev].kind = dup(ev->kind, &e->oom);
	r->ev[r->n_ev].body = dup(ev->body, &e->oom);
	r->n_ev++;
	return e->oom ? -ENOMEM : 0;
}

/* 1 if run a is later than run b: started_at, then id. */
static int run_later(const struct report_run *a, const struct report_run *b)
{
	int c = strcmp(a->started_at ? a->started_at : "", b->started_at ? b->started_at : "");

	return c > 0 || (c == 0 && a->id > b->id);
}

/* An (os, runner) pair: its latest run and every run seen. */
struct pick {
	const char *os, *runner;
	size_t run, n_runs;
	size_t *seen;                /* run indexes seen for this pair */
};

/* Keeps the results of the latest run of each (os, runner) pair, dropping
 * the others, and sets *older_out[i] to the number of older runs of kept
 * result i's pair (the caller frees it). */
static int latest_only(struct report_set *s, unsigned **older_out)
{
	struct pick *p = NULL;
	size_t n_p = 0, keep = 0;
	unsigned *older;
	int r = 0;

	for (size_t i = 0; i < s->n_res && r == 0; i++) {
		struct report_res *x = &s->res[i];
		size_t ri = 0, k;

		run_find(s, x->run_id, &ri);
		for (k = 0; k < n_p; k++)
			if (!strcmp(p[k].os, x->os) && !strcmp(p[k].runner, x->runner))
				break;
		if (k == n_p) {
			void *q = realloc(p, (n_p + 1) * sizeof *p);

			if (!q) { r = -ENOMEM; break; }
			p = q;
			p[n_p++] = (struct pick){ x->os, x->runner, ri, 0, NULL };
		}
		if (run_later(&s->runs[ri], &s->runs[p[k].run]))
			p[k].run = ri;
		/* count distinct runs per pair (runs are few; linear is fine) */
		size_t j;
		for (j = 0; j < p[k].n_runs && p[k].seen[j] != ri; j++)
			;
		if (j == p[k].n_runs) {
			void *q = realloc(p[k].seen, (j + 1) * sizeof *p[k].seen);

			if (!q) { r = -ENOMEM; break; }
			p[k].seen = q;
			p[k].seen[p[k].n_runs++] = ri;
		}
	}
	/* decide for every result before freeing any: the pairs' keys borrow
	 * the strings of their first result */
	older = r ? NULL : calloc(s->n_res + 1, sizeof *older);
	if (!older && r == 0)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < s->n_res; i++) {
		struct report_res *x = &s->res[i];
		size_t k, ri = 0;

		run_find(s, x->run_id, &ri);
		for (k = 0; k < n_p; k++)
			if (!strcmp(p[k].os, x->os) && !strcmp(p[k].runner, x->runner))
				break;
		older[i] = p[k].run == ri ? (unsigned)p[k].n_runs : 0;   /* 0: drop */
	}
	for (size_t i = 0; r == 0 && i < s->n_res; i++) {
		struct report_res *x = &s->res[i];

		if (!older[i]) {
			res_free(x);
			continue;
		}
		older[keep] = older[i] - 1;
		if (keep != i) {
			s->res[keep] = *x;
			memset(x, 0, sizeof *x);
		}
		keep++;
	}
	if (r == 0)
		s->n_res = keep;
	for (size_t k = 0; k < n_p; k++)
		free(p[k].seen);
	free(p);
	if (r)
		free(older);
	else
		*older_out = older;
	return r;
}

int report_load(const char *path, int with_evidence, struct report_set *set,
		char *err, size_t errlen)
{
	struct load l = { .set = set };
	unsigned *older = NULL;
	struct store *db = NULL;
	int r;

	memset(set, 0, sizeof *set);
	set->source = strdup(path);
	if (!set->source)
		return -ENOMEM;
	r = store_open_readonly(path, &db, err, errlen);
	if (r)
		return r;
	r = store_read_runs(db, on_run, &l);
	if (r == 0)
		r = store_read_results(db, 0, on_result, &l);
	if (r == 0)
		r = latest_only(set, &older);
	if (r == 0)
		r = report_index(set);
	if (r == 0) {
		/* older[] is by result; give each column its pair's count */
		for (size_t i = 0; i < set->n_res; i++)
			for (size_t j = 0; j < set->n_cols; j++)
				if (!strcmp(set->cols[j].os, set->res[i].os) &&
				    !strcmp(set->cols[j].runner, set->res[i].runner)) {
					set->cols[j].older_runs = older[i];
					if (set->res[i].run_id)
						run_find(set, set->res[i].run_id, &set->cols[j].run);
				}
	}
	for (size_t i = 0; r == 0 && with_evidence && i < set->n_scens * set->n_cols; i++) {
		struct ev_load e = { .r = set->cells[i] };

		if (e.r)
			r = store_read_evidence(db, e.r->id, on_evidence, &e);
	}
	if (r && !err[0])
		snprintf(err, errlen, "%s: %s", path,
			 store_get_error(db)[0] ? store_get_error(db) : strerror(-r));
	free(older);
	store_close(db);
	return r;
}
