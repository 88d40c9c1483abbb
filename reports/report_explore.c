/* report_explore.c - the section for `sandproof explore` runs (runs whose
 * filter is "explore"; harness/explore.h): per run, the runner, seed,
 * programs run and their rate, violations, and the grammar's coverage, as
 * the run's fingerprint recorded them under "explore".  Each violation is
 * also a fail of its emitted scenario (fs.found_<id>) in the matrix. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int is_explore(const struct report_run *r)
{
	return r->filter && !strcmp(r->filter, "explore");
}

/* One run's figures into buf as one line of cells separated by sep. */
static void explore_cells(const struct report_run *r, const char *sep, char *buf, size_t n)
{
	cJSON *e = r->env_json ? cJSON_Parse(r->env_json) : NULL;
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, "explore");
	double ms = num(x, "elapsed_ms"), progs = num(x, "programs");

	if (!cJSON_IsObject(x))
		snprintf(buf, n, "#%lld%s%s%s(no summary recorded: the run did not finish)",
			 (long long)r->id, sep, r->runners ? r->runners : "?", sep);
	else
		snprintf(buf, n, "#%lld%s%s%s%lld%s%.0f%s%.1f%s%.1f%s%.0f%s%.0f%s%.0f%s%.0f/%.0f%s%.0f/%.0f",
			 (long long)r->id, sep, r->runners ? r->runners : "?", sep,
			 (long long)r->seed, sep, progs, sep, ms / 1000, sep,
			 ms > 0 ? progs * 1000 / ms : 0, sep, num(x, "violations_n"), sep,
			 num(x, "confined"), sep, num(x, "untested") + num(x, "errors"), sep,
			 num(x, "op_pairs"), num(x, "op_pairs_total"), sep, num(x, "name_pairs"),
			 num(x, "name_pairs_total"));
	cJSON_Delete(e);
}

static const char head[] = "run|runner|seed|programs|seconds|programs/s|violations|confined|"
			   "untested or error|op pairs tried|name pairs tried";

void report_explore_md(const struct report_set *s, FILE *f)
{
	char line[1024];
	int any = 0;

	for (size_t k = 0; k < s->n_runs; k++) {
		if (!is_explore(&s->runs[k]))
			continue;
		if (!any++)
			fprintf(f, "### Explore runs\n\n|%s|\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
				head);
		explore_cells(&s->runs[k], "|", line, sizeof line);
		fprintf(f, "|%s|\n", line);
	}
	if (any)
		fprintf(f, "\nEach violation is a failing `fs.found_*` scenario above; "
			"seconds exclude shrinking.\n\n");
}

void report_explore_html(const struct report_set *s, FILE *f)
{
	char line[1024];
	int any = 0;

	for (size_t k = 0; k < s->n_runs; k++) {
		if (!is_explore(&s->runs[k]))
			continue;
		if (!any++) {
			fprintf(f, "<section id=\"explore\"><h2>Explore runs</h2><table><tr><th>");
			for (const char *c = head; *c; c++)
				fputs(*c == '|' ? "</th><th>" : (char[2]){*c, 0}, f);
			fprintf(f, "</th></tr>\n");
		}
		explore_cells(&s->runs[k], "\t", line, sizeof line);
		fprintf(f, "<tr><td>");
		for (char *c = line, *tab; c; c = tab ? tab + 1 : NULL) {
			tab = strchr(c, '\t');
			if (tab)
				*tab = '\0';
			report_esc(f, c, 0, 0);
			fprintf(f, tab ? "</td><td>" : "</td></tr>\n");
		}
	}
	if (any)
		fprintf(f, "</table><p>Each violation is a failing <code>fs.found_*</code> "
			"scenario in the matrix; seconds exclude shrinking.</p></section>\n");
}
