/* runlog.c - see runlog.h. */
#include "runlog.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char *jstr(const cJSON *o, const char *k, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : def;
}

static int64_t jint(const cJSON *o, const char *k, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : def;
}

/* Keeps (runner, scenario, class) of a fail for the summary. */
static void fail_keep(struct tally *t, const char *runner, const char *scenario, int impact)
{
	struct runlog_fail *f;

	if (t->n_fails == t->cap_fails) {
		size_t cap = t->cap_fails ? 2 * t->cap_fails : 64;
		void *p = realloc(t->fails, cap * sizeof *t->fails);

		if (!p) {
			t->fails_lost = true;
			return;
		}
		t->fails = p;
		t->cap_fails = cap;
	}
	f = &t->fails[t->n_fails];
	f->runner = strdup(runner);
	f->scenario = strdup(scenario);
	f->impact = impact;
	f->order = t->done;
	if (!f->runner || !f->scenario) {
		free(f->runner);
		free(f->scenario);
		t->fails_lost = true;
		return;
	}
	t->n_fails++;
}

/* A distinct (class, scenario) among one runner's fails, and how many. */
struct finding {
	const char *scenario;
	int impact;
	size_t n;
};

/* Class order, then most seen first, then by id. */
static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->impact != y->impact)
		return x->impact < y->impact ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->scenario, y->scenario);
}

/* runner's fails grouped: each distinct (class, scenario) once with its
 * count, sorted by finding_cmp, in *out (the caller frees it); their
 * number, 0 when none (or out of memory: *lost set); *fails: how many
 * fails they stand for. */
static size_t findings_of(const struct tally *t, const char *runner, struct finding **out,
			  size_t *fails, bool *lost)
{
	struct finding *v = NULL;
	size_t n = 0;

	*fails = 0;
	for (size_t i = 0; i < t->n_fails; i++) {
		const struct runlog_fail *x = &t->fails[i];
		size_t k = 0;

		if (strcmp(x->runner, runner) || x->impact < 0)
			continue;
		++*fails;
		while (k < n && (v[k].impact != x->impact || strcmp(v[k].scenario, x->scenario)))
			k++;
		if (k == n) {
			struct finding *p = realloc(v, (n + 1) * sizeof *v);

			if (!p) {
				*lost = true;
				continue;
			}
			v = p;
			v[n++] = (struct finding){x->scenario, x->impact, 0};
		}
		v[k].n++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, finding_cmp);
	*out = v;
	return n;
}

/* sep, the finding's scenario, and " xN" (U+00D7) when it stands for N > 1
 * fails. */
static void put_finding(FILE *f, const char *sep, const struct finding *x)
{
	fprintf(f, "%s%s", sep, x->scenario);
	if (x->n > 1)
		fprintf(f, " \u00d7%zu", x->n);
}

/* The summary lines of one runner: its count per class, then each class's
 * scenarios, escapes first, each scenario once ("id xN" when it failed N
 * times, as under --repeat). */
static void summary_runner(struct tally *t, const char *runner, FILE *f)
{
	size_t n[STORE_N_IMPACTS] = {0}, fails, nf;
	struct finding *v;

	nf = findings_of(t, runner, &v, &fails, &t->fails_lost);
	for (size_t k = 0; k < nf; k++)
		n[v[k].impact] += v[k].n;
	fprintf(f, "  %s:", runner);
	for (int c = 0; c < STORE_N_IMPACTS; c++)
		fprintf(f, "%s %zu %s", c ? "," : "", n[c], store_impacts[c]);
	fputc('\n', f);
	for (int c = 0; c < STORE_N_IMPACTS; c++) {
		if (!n[c])
			continue;
		fprintf(f, "    %s:", store_impacts[c]);
		for (size_t k = 0; k < nf; k++)
			if (v[k].impact == c)
				put_finding(f, " ", &v[k]);
		fputc('\n', f);
	}
	free(v);
}

/* Orders fails by their place in the run (run --jobs records them as pairs
 * end, the summary lists them as --jobs 1 would). */
static int fail_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct runlog_fail *)a)->order, y = ((const struct runlog_fail *)b)->order;

	return x < y ? -1 : x > y;
}

/* Frees t's list of fails. */
static void fails_free(struct tally *t)
{
	for (size_t i = 0; i < t->n_fails; i++) {
		free(t->fails[i].runner);
		free(t->fails[i].scenario);
	}
	free(t->fails);
	t->fails = NULL;
	t->n_fails = t->cap_fails = 0;
}

/* Calls fn once per runner with fails, in the order of its first fail. */
static void each_runner(struct tally *t, FILE *f, void (*fn)(struct tally *, const char *, FILE *))
{
	for (size_t i = 0; i < t->n_fails; i++) {
		size_t k = 0;

		while (k < i && strcmp(t->fails[k].runner, t->fails[i].runner))
			k++;
		if (k == i)
			fn(t, t->fails[i].runner, f);
	}
}

void runlog_impact_summary(struct tally *t, FILE *f)
{
	if (t->n_fails > 1)
		qsort(t->fails, t->n_fails, sizeof(*t->fails), fail_cmp);
	if (f && t->n_fails) {
		fprintf(f, "failing outcomes by impact, per runner (escapes first):\n");
		each_runner(t, f, summary_runner);
		if (t->fails_lost)
			fprintf(f, "  (out of memory: some failing results are missing above)\n");
	}
	fails_free(t);
}

/* One runner's findings on one line: "R: D distinct findings in V
 * violating programs - escape 2: a x312, b; hardening 1: c". */
static void findings_runner(struct tally *t, const char *runner, FILE *f)
{
	size_t fails, nf, per[STORE_N_IMPACTS] = {0};
	struct finding *v;
	const char *sep = " \u2014 ";

	nf = findings_of(t, runner, &v, &fails, &t->fails_lost);
	for (size_t k = 0; k < nf; k++)
		per[v[k].impact]++;
	fprintf(f, "%s: %zu distinct finding%s in %zu violating program%s", runner, nf,
		nf == 1 ? "" : "s", fails, fails == 1 ? "" : "s");
	for (int c = 0; c < STORE_N_IMPACTS; c++) {
		if (!per[c])
			continue;
		fprintf(f, "%s%s %zu:", sep, store_impacts[c], per[c]);
		for (size_t k = 0, i = 0; k < nf; k++)
			if (v[k].impact == c)
				put_finding(f, i++ ? ", " : " ", &v[k]);
		sep = "; ";
	}
	fputc('\n', f);
	free(v);
}

void runlog_findings_summary(struct tally *t, FILE *f)
{
	if (f && t->n_fails) {
		each_runner(t, f, findings_runner);
		if (t->fails_lost)
			fprintf(f, "(out of memory: some findings are missing above)\n");
	}
	fails_free(t);
}

int runlog_lost_report(const struct tally *t, const char *dbpath)
{
	if (!t->lost)
		return 0;
	fprintf(stderr, "sandproof: %u result%s could not be recorded in %s: %s\n", t->lost,
		t->lost == 1 ? "" : "s", dbpath, t->lost_why);
	return 1;
}

void runlog_progress(const struct tally *t, const char *current, bool tty)
{
	if (!tty)
		return;
	fprintf(stderr, "\r\033[K[%u/%u] pass %u fail %u skip %u error %u  %s",
		t->done, t->total, t->pass, t->fail, t->skip + t->unsupported,
		t->error + t->inconclusive, current ? current : "");
	fflush(stderr);
}

/* The line of one result, its newline included: malloc'd, NULL on ENOMEM. */
static char *line_format(const char *verdict, const char *id, const char *runner,
			 const struct store_result *r)
{
	char *line;

	if (asprintf(&line, "%-12s %-44s %-8s observed=%s%s%s%s%s\n", verdict, id, runner,
		     r->observed ? r->observed : "-", r->impact ? "  impact: " : "",
		     r->impact ? r->impact : "", r->reason ? "  reason: " : "",
		     r->reason ? r->reason : "") < 0)
		return NULL;
	return line;
}

/* runlog_record, and runlog_record_deferred when line is not NULL: the
 * line is then handed back, not printed. */
static int record_one(struct store *db, int64_t run_id, const struct scen *s,
		      const char *runner, uint64_t seed, const char *json,
		      struct tally *t, bool tty, FILE *echo, char *observed, size_t obslen,
		      char **line)
{
	cJSON *o = cJSON_Parse(json), *ev;
	struct store_evidence evs[64];
	size_t n_ev = 0;
	const char *verdict;
	struct store_result r = {0};
	int64_t id;

	if (!o)
		o = cJSON_Parse("{\"verdict\":\"error\",\"reason\":\"unparsable result\"}");
	verdict = jstr(o, "verdict", "error");
	r.run_id = run_id;
	r.runner = runner;
	r.scenario_id = s->id;
	r.verdict = verdict;
	r.expected = jstr(o, "expected", "");
	r.observed = jstr(o, "observed", NULL);
	r.reason = jstr(o, "reason", NULL);
	r.attempts = jint(o, "attempts", 0);
	r.windows_hit = jint(o, "windows_hit", -1);
	r.min_windows = jint(o, "min_power", 0) > 0 ? jint(o, "min_power", 0) : -1;
	r.seed = (int64_t)seed;
	r.duration_ms = jint(o, "duration_ms", -1);
	r.impact = jstr(o, "impact", NULL);
	ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
	for (cJSON *e = ev ? ev->child : NULL; e && n_ev < 64; e = e->next) {
		evs[n_ev].kind = jstr(e, "kind", "note");
		evs[n_ev].body = jstr(e, "body", "");
		n_ev++;
	}
	id = store_add_result(db, &r, evs, n_ev);
	if (id < 0) {
		fprintf(stderr, "sandproof: cannot record %s/%s: %s\n", s->id, runner,
			store_get_error(db));
		if (t->lost++ == 0)
			snprintf(t->lost_why, sizeof t->lost_why, "%s", store_get_error(db));
	}
	if (!strcmp(verdict, "pass")) t->pass++;
	else if (!strcmp(verdict, "fail")) {
		t->fail++;
		fail_keep(t, runner, s->id, store_impact_index(r.impact));
	}
	else if (!strcmp(verdict, "skip")) t->skip++;
	else if (!strcmp(verdict, "unsupported")) t->unsupported++;
	else if (!strcmp(verdict, "inconclusive")) t->inconclusive++;
	else t->error++;
	t->done++;
	if (line)
		*line = line_format(verdict, s->id, runner, &r);
	if (tty && !line)
		fprintf(stderr, "\r\033[K");
	if (echo && !line) {
		char *l = line_format(verdict, s->id, runner, &r);

		fputs(l ? l : "(out of memory: the result's line is lost)\n", echo);
		fflush(echo);
		free(l);
	}
	if (observed)
		snprintf(observed, obslen, "%s|%s|%s|%s", verdict, r.impact ? r.impact : "-",
			 r.observed ? r.observed : "-", r.reason ? r.reason : "");
	cJSON_Delete(o);
	return id < 0 ? -EIO : 0;
}

int runlog_record(struct store *db, int64_t run_id, const struct scen *s,
		  const char *runner, uint64_t seed, const char *json,
		  struct tally *t, bool tty, FILE *echo, char *observed, size_t obslen)
{
	return record_one(db, run_id, s, runner, seed, json, t, tty, echo, observed, obslen,
			  NULL);
}

int runlog_record_deferred(struct store *db, int64_t run_id, const struct scen *s,
			   const char *runner, uint64_t seed, const char *json,
			   struct tally *t, char **line)
{
	*line = NULL;
	return record_one(db, run_id, s, runner, seed, json, t, false, NULL, NULL, 0, line);
}
