/* report_junit.c - JUnit XML in the Jenkins/Surefire shape that GitHub
 * Actions and GitLab read (report.h; reports/tests/junit.xsd checks it).
 *
 *   testsuites             the database
 *     testsuite            one column: name "os.runner"; properties: its fails
 *                          by impact class (impact.escape first), then its run
 *       testcase           one result: classname "os.runner", name scenario id
 *         skipped          skip and unsupported, message = verdict: reason
 *         failure          fail, type its impact class, the evidence as text
 *         error            error and inconclusive (type says which)
 *
 * A scenario not run for a column has no testcase. */
#include <errno.h>
#include <string.h>

#include "report.h"

#define BODY_MAX 16384               /* bytes of one evidence body */

static void put_seconds(FILE *f, int64_t ms)
{
	fprintf(f, "%lld.%03lld", (long long)(ms > 0 ? ms / 1000 : 0),
		(long long)(ms > 0 ? ms % 1000 : 0));
}

static void put_prop(FILE *f, const char *name, const char *value)
{
	if (!value)
		return;
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	report_esc(f, value, 0, 1);
	fprintf(f, "\"/>\n");
}

static void put_message(FILE *f, const struct report_res *r)
{
	fprintf(f, " message=\"");
	report_esc(f, r->verdict, 0, 1);
	if (r->reason || r->observed)
		fprintf(f, ": ");
	report_esc(f, r->reason ? r->reason : r->observed, 512, 1);
	fprintf(f, "\"");
}

/* The element body of a failure or error: what was expected and seen, then
 * each piece of evidence. */
static void put_evidence(FILE *f, const struct report_res *r)
{
	fprintf(f, "expected: ");
	report_esc(f, r->expected, 0, 0);
	if (r->impact) {
		fprintf(f, "\nimpact: ");
		report_esc(f, r->impact, 0, 0);
	}
	if (r->observed) {
		fprintf(f, "\nobserved: ");
		report_esc(f, r->observed, 0, 0);
	}
	if (r->reason) {
		fprintf(f, "\nreason: ");
		report_esc(f, r->reason, 0, 0);
	}
	if (report_is_race(r)) {
		char power[160];

		fprintf(f, "\nrace: %s\n", report_power(r, power, sizeof power));
	} else {
		fprintf(f, "\nattempts: %lld, seed: %lld\n", (long long)r->attempts, (long long)r->seed);
	}
	for (size_t k = 0; k < r->n_ev; k++) {
		size_t cut;

		fprintf(f, "--- ");
		report_esc(f, r->ev[k].kind, 0, 0);
		fprintf(f, " ---\n");
		cut = report_esc(f, r->ev[k].body, BODY_MAX, 0);
		if (cut)
			fprintf(f, "\n... (%zu more bytes in the database)", cut);
		fprintf(f, "\n");
	}
}

static void put_case(FILE *f, const char *suite, const char *id, const struct report_res *r)
{
	fprintf(f, "    <testcase classname=\"");
	report_esc(f, suite, 0, 1);
	fprintf(f, "\" name=\"");
	report_esc(f, id, 0, 1);
	fprintf(f, "\" time=\"");
	put_seconds(f, r->duration_ms);
	fprintf(f, "\"");
	switch (r->v) {
	case RV_PASS:
		fprintf(f, "/>\n");
		return;
	case RV_SKIP:
	case RV_UNSUPPORTED:
		fprintf(f, ">\n      <skipped");
		put_message(f, r);
		fprintf(f, "/>\n    </testcase>\n");
		return;
	case RV_FAIL:              /* type: the impact class, "fail" if unknown */
		fprintf(f, ">\n      <failure type=\"%s\"",
			report_impact_of(r) >= 0 ? store_impacts[report_impact_of(r)] : "fail");
		put_message(f, r);
		fprintf(f, ">");
		put_evidence(f, r);
		fprintf(f, "</failure>\n    </testcase>\n");
		return;
	default:                     /* error, inconclusive, or an unknown verdict */
		fprintf(f, ">\n      <error type=\"");
		report_esc(f, r->verdict, 0, 1);
		fprintf(f, "\"");
		put_message(f, r);
		fprintf(f, ">");
		put_evidence(f, r);
		fprintf(f, "</error>\n    </testcase>\n");
	}
}

struct counts {
	unsigned tests, failures, errors, skipped;
	int64_t ms;
};

static struct counts col_counts(const struct report_set *s, size_t j)
{
	const struct report_col *c = &s->cols[j];
	struct counts n = {
		.tests = (unsigned)(s->n_scens - c->n[RV_NONE]),
		.failures = c->n[RV_FAIL],
		.errors = c->n[RV_ERROR] + c->n[RV_INCONCLUSIVE],
		.skipped = c->n[RV_SKIP] + c->n[RV_UNSUPPORTED],
		.ms = c->total_ms,
	};
	return n;
}

/* The suite's fails by impact class, escapes first: one property per
 * class, "N" or "N: id id ...". */
static void put_impact_props(const struct report_set *s, size_t j, FILE *f)
{
	size_t n[STORE_N_IMPACTS];
	char name[32];

	report_impact_count(s, j, n);
	for (int c = 0; c < STORE_N_IMPACTS; c++) {
		snprintf(name, sizeof name, "impact.%s", store_impacts[c]);
		fprintf(f, "      <property name=\"%s\" value=\"%zu", name, n[c]);
		for (size_t i = 0, k = 0; i < s->n_scens; i++)
			if (report_impact_of(report_cell(s, i, j)) == c) {
				fprintf(f, "%s", k++ ? " " : ": ");
				report_esc(f, s->scens[i].id, 0, 1);
			}
		fprintf(f, "\"/>\n");
	}
}

int report_junit(const struct report_set *s, FILE *f)
{
	struct counts all = {0};
	char suite[512];

	for (size_t j = 0; j < s->n_cols; j++) {
		struct counts n = col_counts(s, j);

		all.tests += n.tests;
		all.failures += n.failures;
		all.errors += n.errors;
		all.skipped += n.skipped;
		all.ms += n.ms;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"sandproof\" tests=\"%u\" failures=\"%u\" errors=\"%u\" time=\"",
		all.tests, all.failures, all.errors);
	put_seconds(f, all.ms);
	fprintf(f, "\">\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		const struct report_col *c = &s->cols[j];
		const struct report_run *run = c->run != (size_t)-1 ? &s->runs[c->run] : NULL;
		struct counts n = col_counts(s, j);

		snprintf(suite, sizeof suite, "%s.%s", c->os, c->runner);
		fprintf(f, "  <testsuite name=\"");
		report_esc(f, suite, 0, 1);
		fprintf(f, "\" id=\"%zu\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"",
			j, n.tests, n.failures, n.errors, n.skipped);
		put_seconds(f, n.ms);
		fprintf(f, "\"");
		/* timestamp: the schema's ISO 8601 without fraction or zone */
		if (run && run->started_at && strlen(run->started_at) >= 19) {
			fprintf(f, " timestamp=\"");
			report_esc(f, run->started_at, 19, 1);
			fprintf(f, "\"");
		}
		fprintf(f, ">\n");
		if (run) {
			char num[32];

			fprintf(f, "    <properties>\n");
			put_impact_props(s, j, f);
			snprintf(num, sizeof num, "%lld", (long long)run->id);
			put_prop(f, "run", num);
			put_prop(f, "os", run->os);
			put_prop(f, "kernel", run->kernel);
			put_prop(f, "arch", run->arch);
			put_prop(f, "user", run->user);
			put_prop(f, "sandproof", run->harness_version);
			put_prop(f, "git_revision", run->git_revision);
			snprintf(num, sizeof num, "%lld", (long long)run->seed);
			put_prop(f, "seed", num);
			put_prop(f, "started_at", run->started_at);
			put_prop(f, "finished_at", run->finished_at);
			put_prop(f, "env", run->env_json);
			fprintf(f, "    </properties>\n");
		}
		for (size_t i = 0; i < s->n_scens; i++) {
			const struct report_res *r = report_cell(s, i, j);

			if (r)
				put_case(f, suite, s->scens[i].id, r);
		}
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	return ferror(f) ? -EIO : 0;
}
